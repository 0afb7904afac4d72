/**
 * A Vite plugin that serves the web app's texts from `locales/*.json` in sections, so a
 * screen loads only its own texts in the chosen language: `virtual:locale/<lang>/<section>`
 * is the part of that catalogue's `web` object listed for the section below, and
 * `virtual:locales` maps every language and section to its lazy import.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { basename, join } from 'node:path';

import type { Plugin } from 'vite';

/** Which top-level keys of `web` each section carries (`sale`: the sell action both contract screens show). */
export const SECTIONS: Record<string, readonly string[]> = {
  common: ['app', 'languages', 'nav', 'header', 'connection', 'errors', 'time'],
  auth: ['auth'],
  markets: ['markets'],
  trade: ['trade', 'sale'],
  records: ['records', 'sale'],
  account: ['account'],
  wallet: ['wallet'],
  invite: ['invite'],
  security: ['security'],
  profile: ['profile'],
  responsible: ['responsible'],
  alerts: ['alerts'],
  copy: ['copyTrading'],
  tournaments: ['tournaments'],
  notifications: ['notifications'],
  admin: ['admin'],
};

const PREFIX = 'virtual:locale/';
const INDEX = 'virtual:locales';

export function localeSections(localesDir: string): Plugin {
  const languages = () =>
    readdirSync(localesDir)
      .filter((f) => f.endsWith('.json'))
      .map((f) => basename(f, '.json'))
      .sort();
  return {
    name: 'locale-sections',
    resolveId(id) {
      if (id === INDEX || id.startsWith(PREFIX)) return `\0${id}`;
      return null;
    },
    load(id) {
      if (id === `\0${INDEX}`) {
        const entries = languages().map((lang) => {
          const sections = Object.keys(SECTIONS).map((s) => `${JSON.stringify(s)}: () => import(${JSON.stringify(`${PREFIX}${lang}/${s}`)})`);
          return `${JSON.stringify(lang)}: {${sections.join(',')}}`;
        });
        return `export default {${entries.join(',')}};`;
      }
      if (!id.startsWith(`\0${PREFIX}`)) return null;
      const [lang, section] = id.slice(PREFIX.length + 1).split('/');
      const keys = SECTIONS[section ?? ''];
      if (!lang || !keys) throw new Error(`unknown locale section ${id}`);
      const file = join(localesDir, `${lang}.json`);
      this.addWatchFile(file);
      const web = (JSON.parse(readFileSync(file, 'utf8')) as { web?: Record<string, unknown> }).web ?? {};
      const picked = Object.fromEntries(keys.filter((k) => k in web).map((k) => [k, web[k]]));
      return `export default ${JSON.stringify(picked)};`;
    },
  };
}
