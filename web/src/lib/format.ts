/**
 * Number, money, time and duration formatting in the user's language. Money and prices
 * arrive as decimal strings and are formatted from the string (Intl reads it exactly), so no
 * amount ever passes through a float on its way to the screen.
 */
import type { Language } from './i18n';

type Translate = (key: string, options?: Record<string, unknown>) => string;

/** The Intl locale of a language: Arabic with Western digits, as trading screens use. */
export function intlLocale(language: string): string {
  return language === 'ar-AR' ? 'ar-u-nu-latn' : language;
}

/** Intl formatters are costly to make and many are made per second: one per language and options. */
function memo<O, F>(make: (locale: string, options: O) => F) {
  const made = new Map<string, F>();
  return (language: string, options: O): F => {
    const key = `${language}|${JSON.stringify(options)}`;
    let format = made.get(key);
    if (!format) {
      format = make(intlLocale(language), options);
      made.set(key, format);
    }
    return format;
  };
}

const numberFormat = memo((locale, options: Intl.NumberFormatOptions) => new Intl.NumberFormat(locale, options));
const dateFormat = memo((locale, options: Intl.DateTimeFormatOptions) => new Intl.DateTimeFormat(locale, options));

const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)$/;

/** True for a plain decimal string such as "12", "-0.5" or "1234.5678". */
export function isDecimal(value: string): boolean {
  return DECIMAL.test(value.trim());
}

type Numeric = `${number}`;

function exact(value: string | number): Numeric | number {
  return typeof value === 'number' ? value : (value.trim() as Numeric);
}

/** A decimal with a fixed number of fraction digits, e.g. a price at its precision. */
export function formatDecimal(
  value: string | number,
  language: Language | string,
  digits: number,
  signed = false,
): string {
  if (typeof value === 'string' && !isDecimal(value)) return '--';
  return numberFormat(language, {
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
    signDisplay: signed ? 'exceptZero' : 'auto',
  }).format(exact(value));
}

/** An amount of USDT with 2 decimals (spec §9: amounts in notices show 2 decimals). */
export function formatMoney(value: string | number, language: Language | string, signed = false): string {
  return formatDecimal(value, language, 2, signed);
}

/** A percent value given in percent units ("1.5" is 1.50 %), always signed. */
export function formatPercent(value: string | number, language: Language | string): string {
  if (typeof value === 'string' && !isDecimal(value)) return '--';
  const number = numberFormat(language, {
    minimumFractionDigits: 2,
    maximumFractionDigits: 2,
    signDisplay: 'exceptZero',
  }).format(exact(value));
  return `${number}%`;
}

/** A payout rate ("0.85") as a percent ("85%"). */
export function formatRate(rate: string, language: Language | string): string {
  if (!isDecimal(rate)) return '--';
  return numberFormat(language, { style: 'percent', maximumFractionDigits: 2 }).format(exact(rate));
}

const SUFFIXES: ReadonlyArray<readonly [number, string]> = [
  [1e9, 'B'],
  [1e6, 'M'],
  [1e3, 'K'],
];

/** Large volumes with the spec's suffixes B, M and K (a display value, not money). */
export function formatVolume(value: string | number, language: Language | string): string {
  const number = typeof value === 'number' ? value : Number(value);
  if (!Number.isFinite(number)) return '--';
  const abs = Math.abs(number);
  for (const [size, suffix] of SUFFIXES) {
    if (abs >= size) {
      return `${numberFormat(language, { maximumFractionDigits: 2 }).format(number / size)}${suffix}`;
    }
  }
  return numberFormat(language, { maximumFractionDigits: 2 }).format(number);
}

/** Date and time to the second, 24-hour clock. */
export function formatDateTime(ms: number | null | undefined, language: Language | string): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms) || ms <= 0) return '--';
  return dateFormat(language, {
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
  }).format(ms);
}

/** Time of day to the second, 24-hour clock. */
export function formatTime(ms: number, language: Language | string): string {
  if (!Number.isFinite(ms) || ms <= 0) return '--';
  return dateFormat(language, { hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' }).format(ms);
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** Relative time as the spec reads it: "Just now", "5m ago", "3h ago", "2d ago". */
export function relativeTime(ms: number, now: number, t: Translate): string {
  const age = Math.max(0, now - ms);
  if (age < MINUTE) return t('time.justNow');
  if (age < HOUR) return t('time.minutesAgo', { count: Math.floor(age / MINUTE) });
  if (age < DAY) return t('time.hoursAgo', { count: Math.floor(age / HOUR) });
  return t('time.daysAgo', { count: Math.floor(age / DAY) });
}

/** A contract duration: 60 -> "1 min", 3600 -> "1 h", 604800 -> "1 w". */
export function formatDuration(seconds: number, t: Translate): string {
  if (seconds > 0 && seconds % 604_800 === 0) return t('time.weeks', { count: seconds / 604_800 });
  if (seconds > 0 && seconds % 86_400 === 0) return t('time.days', { count: seconds / 86_400 });
  if (seconds > 0 && seconds % 3_600 === 0) return t('time.hours', { count: seconds / 3_600 });
  if (seconds > 0 && seconds % 60 === 0) return t('time.minutes', { count: seconds / 60 });
  return t('time.seconds', { count: seconds });
}

/** A countdown: "04:59", or "26:02:03" past an hour (hours are not wrapped into days). */
export function formatCountdown(ms: number): string {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const hours = Math.floor(total / 3_600);
  const minutes = Math.floor((total % 3_600) / 60);
  const seconds = total % 60;
  const pad = (n: number) => String(n).padStart(2, '0');
  return hours > 0 ? `${pad(hours)}:${pad(minutes)}:${pad(seconds)}` : `${pad(minutes)}:${pad(seconds)}`;
}
