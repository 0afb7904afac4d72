import { checkRange, dayEndMs, dayStartMs } from './dates';

test('a date is the user\'s local day, from its first to its last millisecond', () => {
  const start = dayStartMs('2026-11-23')!;
  expect(new Date(start)).toEqual(new Date(2026, 10, 23, 0, 0, 0, 0));
  expect(dayEndMs('2026-11-23')! - start).toBe(24 * 3_600_000 - 1);
  // Month ends and leap days.
  expect(new Date(dayEndMs('2024-02-29')! + 1)).toEqual(new Date(2024, 2, 1));
  for (const bad of ['2026-02-30', '2026-13-01', '23/11/2026', '']) expect(dayStartMs(bad)).toBeNull();
});

test('the range: each end optional, a bad date or an end before the start refused', () => {
  expect(checkRange('', '')).toBeUndefined();
  expect(checkRange('2026-11-01', '')).toBeUndefined();
  expect(checkRange('', '2026-11-01')).toBeUndefined();
  expect(checkRange('2026-11-23', '2026-11-23')).toBeUndefined();
  expect(checkRange('2026-11-24', '2026-11-23')).toBe('wallet.history.endBeforeStart');
  expect(checkRange('2026-02-30', '')).toBe('errors.invalidDate');
});
