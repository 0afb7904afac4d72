/** How copy trading's figures are shown: a win rate as a percent, a signed profit, a day, a copy's settings in words. */
import { useTranslation } from 'react-i18next';

import { formatMoney, formatRate, intlLocale } from '@/lib/format';

import type { CopySettingsView } from '../api';
import { hasStop } from '../form';

type Translate = (key: string, options?: Record<string, unknown>) => string;

/** A win rate ("0.625") as a percent ("62.5%"). */
export function WinRate({ value }: { value: string }) {
  const { i18n } = useTranslation();
  return <span className="num">{formatRate(value, i18n.language)}</span>;
}

/** The colour of a signed amount: up above zero, down below, none at zero. */
export function tone(amount: string): string {
  if (amount.trim().startsWith('-')) return 'down';
  return /[1-9]/.test(amount) ? 'up' : '';
}

/** A profit in USDT, signed and coloured. */
export function Profit({ value, unit = false }: { value: string; unit?: boolean }) {
  const { i18n } = useTranslation();
  return (
    <span className={`num ${tone(value)}`.trim()}>
      {formatMoney(value, i18n.language, true)}
      {unit && ' USDT'}
    </span>
  );
}

const days = new Map<string, Intl.DateTimeFormat>();

/** A day (no time), in the user's language. */
export function formatDay(ms: number | null | undefined, language: string): string {
  if (!ms || !Number.isFinite(ms)) return '--';
  let format = days.get(language);
  if (!format) {
    format = new Intl.DateTimeFormat(intlLocale(language), { year: 'numeric', month: 'short', day: 'numeric' });
    days.set(language, format);
  }
  return format.format(ms);
}

/** A copy's settings in words: "Demo · 50% of the trader's stake · 1.00–100.00 USDT · No stop". */
export function settingsText(settings: CopySettingsView, t: Translate, language: string): string {
  const money = (v: string) => formatMoney(v, language);
  return [
    t(`header.${settings.account}`),
    t('copyTrading.summary.percent', { percent: settings.percent }),
    t('copyTrading.summary.stakes', { min: money(settings.minStake), max: money(settings.maxStake) }),
    hasStop(settings.stopBelow) ? t('copyTrading.summary.stop', { amount: money(settings.stopBelow) }) : t('copyTrading.summary.noStop'),
  ].join(' · ');
}
