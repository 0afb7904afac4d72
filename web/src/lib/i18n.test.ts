import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

import { LANGUAGES, changeLanguage, i18n } from './i18n';

const LOCALES = resolve(__dirname, '../../../locales');
const SRC = resolve(__dirname, '..');

type Tree = { [key: string]: string | Tree };

function flatten(tree: Tree, prefix = ''): Map<string, string> {
  const out = new Map<string, string>();
  for (const [key, value] of Object.entries(tree)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (typeof value === 'string') out.set(path, value);
    else for (const [k, v] of flatten(value, path)) out.set(k, v);
  }
  return out;
}

function webTexts(language: string): Map<string, string> {
  const catalogue = JSON.parse(readFileSync(join(LOCALES, `${language}.json`), 'utf8')) as { web: Tree };
  return flatten(catalogue.web);
}

const placeholders = (text: string) => [...text.matchAll(/\{\{(\w+)\}\}/g)].map((m) => m[1]).sort();

test('every language has every web text of en-US, with the same placeholders', () => {
  const english = webTexts('en-US');
  expect(english.size).toBeGreaterThan(300);
  for (const { code } of LANGUAGES) {
    const texts = webTexts(code);
    expect([...texts.keys()].sort(), code).toEqual([...english.keys()].sort());
    for (const [key, text] of texts) {
      expect(text.trim(), `${code} ${key}`).not.toBe('');
      expect(placeholders(text), `${code} ${key}`).toEqual(placeholders(english.get(key)!));
    }
  }
});

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return /\.tsx?$/.test(name) && !/\.test\.tsx?$/.test(name) ? [path] : [];
  });
}

test('every text key the code names exists in en-US', () => {
  const english = webTexts('en-US');
  const sections = new Set([...english.keys()].map((k) => k.split('.')[0]));
  const missing: string[] = [];
  for (const file of sources(SRC)) {
    const code = readFileSync(file, 'utf8');
    for (const [, key] of code.matchAll(/['"`]([a-z]+(?:\.[A-Za-z0-9_]+)+)['"`]/g)) {
      if (!sections.has(key!.split('.')[0]!) || english.has(key!)) continue;
      // A prefix of keys built at run time (`trade.periods.${p}`) is not a key itself.
      if ([...english.keys()].some((k) => k.startsWith(`${key}.`))) continue;
      missing.push(`${file.slice(SRC.length)}: ${key}`);
    }
  }
  expect(missing).toEqual([]);
});

test('a language change is stored, applied to <html>, and Arabic is right-to-left', async () => {
  await changeLanguage('ar-AR');
  try {
    expect(document.documentElement.lang).toBe('ar-AR');
    expect(document.documentElement.dir).toBe('rtl');
    expect(window.localStorage.getItem('language')).toBe('ar-AR');
    expect(window.localStorage.getItem('locale')).toBe('ar-AR');
    expect(i18n.t('nav.markets')).toBe(webTexts('ar-AR').get('nav.markets'));
    await changeLanguage('de-DE');
    expect(document.documentElement.dir).toBe('ltr');
    expect(i18n.t('trade.panel.buyUp')).toBe(webTexts('de-DE').get('trade.panel.buyUp'));
  } finally {
    await changeLanguage('en-US');
  }
});
