import { parseLimits } from './form';

const empty = { dailyLoss: '', dailyTurnover: '', openContracts: '', sessionReminderMinutes: '', excludeUntil: '' };
const NOW = new Date(2026, 10, 23, 12, 0).getTime();

test('empty fields are no limits; values become decimal strings and whole numbers', () => {
  expect(parseLimits(empty, NOW)).toEqual({ limits: { dailyLoss: null, dailyTurnover: null, openContracts: null, sessionReminderMinutes: null, excludedUntil: null } });
  expect(parseLimits({ ...empty, dailyLoss: '50.5', openContracts: '3', sessionReminderMinutes: '45' }, NOW)).toEqual({
    limits: { dailyLoss: '50.5', dailyTurnover: null, openContracts: 3, sessionReminderMinutes: 45, excludedUntil: null },
  });
});

test('a self-exclusion runs to the end of the chosen local day, which must be in the future', () => {
  const parsed = parseLimits({ ...empty, excludeUntil: '2026-11-30' }, NOW);
  expect(parsed).toEqual({ limits: expect.objectContaining({ excludedUntil: new Date(2026, 11, 1).getTime() }) });
  expect(parseLimits({ ...empty, excludeUntil: '2026-11-22' }, NOW)).toEqual({ errors: { excludeUntil: 'responsible.validation.date' } });
  expect(parseLimits({ ...empty, excludeUntil: '2040-01-01' }, NOW)).toEqual({ errors: { excludeUntil: 'responsible.validation.tooFar' } });
});

test('bad values name their field', () => {
  expect(parseLimits({ ...empty, dailyLoss: '0', dailyTurnover: '1e3', openContracts: '0', sessionReminderMinutes: '2.5' }, NOW)).toEqual({
    errors: {
      dailyLoss: 'responsible.validation.amount',
      dailyTurnover: 'responsible.validation.amount',
      openContracts: 'responsible.validation.count',
      sessionReminderMinutes: 'responsible.validation.count',
    },
  });
});
