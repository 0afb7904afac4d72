import { blankForm, checkForm, formOf } from './api';

test('the form becomes the request: lists split, shares in basis points, times in ms', () => {
  const form = { ...blankForm(Date.UTC(2026, 10, 27, 10, 30)), title: ' Sprint ', symbols: 'btcusdt, ETHUSDT', durations: '60, 300', entryFee: '10', prizes: '60, 30, 10', poolShare: '80' };
  const { body, errors } = checkForm(form);
  expect(errors).toEqual({});
  expect(body).toMatchObject({ title: 'Sprint', symbols: ['BTCUSDT', 'ETHUSDT'], durations: [60, 300], entryFee: '10', poolShareBp: 8000, prizesBp: [6000, 3000, 1000] });
  expect(body!.endAt - body!.startAt).toBe(24 * 3_600_000);
  expect(formOf(body!)).toMatchObject({ title: 'Sprint', symbols: 'BTCUSDT, ETHUSDT', prizes: '60, 30, 10', poolShare: '80' });
});

test('every field is checked before sending', () => {
  const form = { ...blankForm(0), title: '', symbols: 'BTC/USDT', durations: '60, x', end: blankForm(-86_400_000).start, entryFee: '1.234', startBalance: '0', rebuysMax: '101', poolShare: '120', prizes: '30, 60, 10' };
  expect(checkForm(form).errors).toEqual({
    title: 'admin.tournaments.errors.title',
    symbols: 'admin.tournaments.errors.symbols',
    durations: 'admin.tournaments.errors.durations',
    end: 'admin.tournaments.errors.endBeforeStart',
    entryFee: 'admin.tournaments.errors.amount',
    startBalance: 'admin.tournaments.errors.amount',
    rebuysMax: 'admin.tournaments.errors.rebuys',
    poolShare: 'admin.tournaments.errors.share',
    prizes: 'admin.tournaments.errors.prizes',
  });
  expect(checkForm({ ...blankForm(0), title: 'x', prizes: '50, 40' }).errors).toEqual({ prizes: 'admin.tournaments.errors.prizes' });
});
