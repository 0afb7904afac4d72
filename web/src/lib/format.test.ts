import { i18n } from './i18n';
import { changeLanguage } from './i18n';
import {
  formatCountdown,
  formatDecimal,
  formatDuration,
  formatMoney,
  formatPercent,
  formatRate,
  formatVolume,
  relativeTime,
} from './format';

const t = (key: string, options?: Record<string, unknown>) => i18n.t(key, options);

describe('money and prices, from decimal strings', () => {
  test('two decimals with the grouping of each language', () => {
    expect(formatMoney('1234.5', 'en-US')).toBe('1,234.50');
    expect(formatMoney('1234.5', 'de-DE')).toBe('1.234,50');
    expect(formatMoney('1234.5', 'es-ES')).toBe('1234,50');
    expect(formatMoney('1234567.5', 'hi-IN')).toBe('12,34,567.50');
    expect(formatMoney('1234.5', 'fr-FR')).toBe('1\u202f234,50');
    expect(formatMoney('1234.5', 'ru-RU')).toBe('1\u00a0234,50');
  });

  test('Arabic keeps Western digits with Arabic separators', () => {
    expect(formatMoney('1234.5', 'ar-AR')).toMatch(/^1.234.50$/);
    expect(formatMoney('1234.5', 'ar-AR')).not.toMatch(/[٠-٩]/);
  });

  test('a string amount is formatted exactly, never through a float', () => {
    // 0.1 + 0.2 style errors and 17-digit amounts survive as written.
    expect(formatDecimal('12345678901234567.89', 'en-US', 2)).toBe('12,345,678,901,234,567.89');
    expect(formatMoney('0.005', 'en-US')).toBe('0.01');
    expect(formatMoney('-3', 'en-US', true)).toBe('-3.00');
    expect(formatMoney('8.5', 'en-US', true)).toBe('+8.50');
  });

  test('prices keep their product precision; garbage shows as a dash', () => {
    expect(formatDecimal('1.0716', 'en-US', 5)).toBe('1.07160');
    expect(formatDecimal('not a number', 'en-US', 2)).toBe('--');
  });

  test('percentages are signed; payout rates are shown as percents', () => {
    expect(formatPercent('1.5', 'en-US')).toBe('+1.50%');
    expect(formatPercent('-0.25', 'de-DE')).toBe('-0,25%');
    expect(formatPercent('0', 'en-US')).toBe('0.00%');
    expect(formatRate('0.85', 'en-US')).toBe('85%');
    expect(formatRate('0.825', 'fr-FR')).toBe('82,5\u00a0%');
  });

  test('volumes use the suffixes B, M and K', () => {
    expect(formatVolume('1530000000', 'en-US')).toBe('1.53B');
    expect(formatVolume('2500000', 'en-US')).toBe('2.5M');
    expect(formatVolume('12345', 'en-US')).toBe('12.35K');
    expect(formatVolume('999', 'en-US')).toBe('999');
    expect(formatVolume('2500000', 'de-DE')).toBe('2,5M');
  });
});

describe('times', () => {
  const now = Date.UTC(2026, 10, 22, 12, 0, 0);

  test('relative time reads Just now, m, h and d ago', () => {
    expect(relativeTime(now - 30_000, now, t)).toBe('Just now');
    expect(relativeTime(now - 5 * 60_000, now, t)).toBe('5m ago');
    expect(relativeTime(now - 3 * 3_600_000, now, t)).toBe('3h ago');
    expect(relativeTime(now - 2 * 86_400_000, now, t)).toBe('2d ago');
    // A time from the future (a skewed clock) is "Just now", never negative.
    expect(relativeTime(now + 60_000, now, t)).toBe('Just now');
  });

  test('relative time and durations in other languages', async () => {
    await changeLanguage('es-ES');
    try {
      expect(relativeTime(now - 5 * 60_000, now, t)).toBe('hace 5 min');
      await changeLanguage('ar-AR');
      expect(relativeTime(now - 3 * 3_600_000, now, t)).toBe('منذ 3 س');
      expect(formatDuration(300, t)).toBe('5 د');
    } finally {
      await changeLanguage('en-US');
    }
  });

  test('durations use the largest whole unit', () => {
    expect(formatDuration(5, t)).toBe('5 s');
    expect(formatDuration(60, t)).toBe('1 min');
    expect(formatDuration(1800, t)).toBe('30 min');
    expect(formatDuration(3600, t)).toBe('1 h');
    expect(formatDuration(86_400, t)).toBe('1 d');
    expect(formatDuration(604_800, t)).toBe('1 w');
    expect(formatDuration(90, t)).toBe('90 s');
  });

  test('countdowns', () => {
    expect(formatCountdown(59_001)).toBe('01:00');
    expect(formatCountdown(4_000)).toBe('00:04');
    expect(formatCountdown(-10)).toBe('00:00');
    expect(formatCountdown(26 * 3_600_000 + 61_000)).toBe('26:01:01');
  });
});
