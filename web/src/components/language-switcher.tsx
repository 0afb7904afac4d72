/** The language switcher: a native select (accessible, mobile friendly) behind a globe. */
import { useTranslation } from 'react-i18next';

import { LANGUAGES, type Language, changeLanguage, isLanguage } from '@/lib/i18n';

import { GlobeIcon } from './icons';

export function LanguageSwitcher({ compact = false }: { compact?: boolean }) {
  const { t, i18n } = useTranslation();
  const current = isLanguage(i18n.language) ? i18n.language : 'en-US';
  const short = LANGUAGES.find((l) => l.code === current)?.short ?? 'EN';
  return (
    <label className="language-switcher" title={t('header.language')}>
      <GlobeIcon />
      {!compact && <span className="language-short">{short}</span>}
      <select
        aria-label={t('header.language')}
        value={current}
        onChange={(event) => void changeLanguage(event.target.value as Language)}
      >
        {LANGUAGES.map((language) => (
          <option key={language.code} value={language.code}>
            {language.short} · {t(`languages.${language.code}`)}
          </option>
        ))}
      </select>
    </label>
  );
}
