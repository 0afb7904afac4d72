/**
 * Languages (spec §1, decisions §10): eight catalogues in `locales/`, shared with the server.
 * The web app's texts live under each catalogue's `web` key and are loaded in sections
 * (scripts/locale-sections.ts): `common` and `auth` at start, each screen's own section with
 * its code, in the chosen language and in en-US, the fallback. The choice is stored under
 * `language` (and `locale`, which the API client sends), applied to `<html lang>`, and
 * Arabic turns the page right-to-left.
 */
import i18next from 'i18next';
import { initReactI18next } from 'react-i18next';
import locales from 'virtual:locales';

import { StorageKey, readKey, writeKey } from './storage';

export const LANGUAGES = [
  { code: 'en-US', short: 'EN' },
  { code: 'es-ES', short: 'ES' },
  { code: 'pt-PT', short: 'PT' },
  { code: 'ar-AR', short: 'AR' },
  { code: 'de-DE', short: 'DE' },
  { code: 'ru-RU', short: 'RU' },
  { code: 'fr-FR', short: 'FR' },
  { code: 'hi-IN', short: 'HI' },
] as const;

export type Language = (typeof LANGUAGES)[number]['code'];

export const DEFAULT_LANGUAGE: Language = 'en-US';

/** Sections every page needs: the shell's texts and sign-in (the session can end anywhere). */
export const START_SECTIONS = ['common', 'auth'] as const;

const RTL: ReadonlySet<Language> = new Set<Language>(['ar-AR']);

export function isLanguage(value: unknown): value is Language {
  return LANGUAGES.some((l) => l.code === value);
}

/** The stored language, or the default. */
export function storedLanguage(): Language {
  const stored = readKey(StorageKey.language);
  return isLanguage(stored) ? stored : DEFAULT_LANGUAGE;
}

export function direction(language: Language): 'rtl' | 'ltr' {
  return RTL.has(language) ? 'rtl' : 'ltr';
}

/** The language the server should answer in (the API client's `language` header). */
export function requestLanguage(): Language {
  const stored = readKey(StorageKey.locale);
  return isLanguage(stored) ? stored : storedLanguage();
}

function applyToDocument(language: Language): void {
  const root = document.documentElement;
  root.lang = language;
  root.dir = direction(language);
}

export const i18n = i18next.createInstance();

/** Sections asked for so far; a language change loads them all in the new language. */
const wanted = new Set<string>();
/** `${language}/${section}` already added to i18next. */
const loaded = new Map<string, Promise<void>>();

function loadSection(language: Language, section: string): Promise<void> {
  const key = `${language}/${section}`;
  let done = loaded.get(key);
  if (!done) {
    const load = locales[language]?.[section];
    done = load
      ? load().then(({ default: texts }) => {
          i18n.addResourceBundle(language, 'translation', texts, true, true);
        })
      : Promise.resolve();
    done.catch(() => loaded.delete(key));
    loaded.set(key, done);
  }
  return done;
}

async function loadSections(language: Language, sections: Iterable<string>): Promise<void> {
  const languages = language === DEFAULT_LANGUAGE ? [language] : [language, DEFAULT_LANGUAGE];
  await Promise.all(languages.flatMap((lng) => [...sections].map((s) => loadSection(lng, s))));
}

/** Loads a screen's texts (in the current language and the fallback) before it renders. */
export async function ensureSections(sections: readonly string[]): Promise<void> {
  for (const s of sections) wanted.add(s);
  await loadSections(currentLanguage(), sections);
}

export function currentLanguage(): Language {
  return isLanguage(i18n.language) ? i18n.language : storedLanguage();
}

/** Starts i18next in the stored language with the start sections loaded. */
export async function initI18n(language: Language = storedLanguage()): Promise<void> {
  applyToDocument(language);
  await i18n.use(initReactI18next).init({
    lng: language,
    fallbackLng: DEFAULT_LANGUAGE,
    supportedLngs: LANGUAGES.map((l) => l.code),
    resources: {},
    partialBundledLanguages: true,
    interpolation: { escapeValue: false },
    returnNull: false,
    react: { useSuspense: false, bindI18nStore: 'added' },
  });
  for (const s of START_SECTIONS) wanted.add(s);
  await loadSections(language, wanted);
}

/** Switches the language (its texts first), stores it and mirrors the page for Arabic. */
export async function changeLanguage(language: Language): Promise<void> {
  await loadSections(language, wanted);
  writeKey(StorageKey.language, language);
  writeKey(StorageKey.locale, language);
  await i18n.changeLanguage(language);
  applyToDocument(language);
}
