import { formOf, newCopyForm, parseCopyForm } from './form';

const form = (patch: Partial<ReturnType<typeof newCopyForm>> = {}) => ({ ...newCopyForm('demo'), ...patch });

test('a valid form becomes the settings sent: a whole percent, trimmed amounts, an empty stop as 0', () => {
  expect(parseCopyForm(form({ account: 'real', percent: ' 50 ', minStake: '2.5', maxStake: '40', stopBelow: '' }))).toEqual({
    settings: { account: 'real', percent: 50, minStake: '2.5', maxStake: '40', stopBelow: '0' },
  });
  expect(parseCopyForm(form({ percent: '1000', minStake: '10', maxStake: '10', stopBelow: '25.50' }))).toEqual({
    settings: { account: 'demo', percent: 1000, minStake: '10', maxStake: '10', stopBelow: '25.50' },
  });
  // Any spelling of zero is no stop to the server: sent as typed.
  expect(parseCopyForm(form({ stopBelow: ' 0.00 ' }))).toEqual({ settings: expect.objectContaining({ stopBelow: '0.00' }) });
});

test('each wrong field is named with its message', () => {
  expect(parseCopyForm(form({ percent: '0', minStake: '0', maxStake: '1.234', stopBelow: '-1' }))).toEqual({
    errors: { percent: 'copyTrading.validation.percent', minStake: 'copyTrading.validation.amount', maxStake: 'copyTrading.validation.amount', stopBelow: 'copyTrading.validation.stop' },
  });
  expect(parseCopyForm(form({ percent: '1001' }))).toEqual({ errors: { percent: 'copyTrading.validation.percent' } });
  expect(parseCopyForm(form({ percent: '12.5' }))).toEqual({ errors: { percent: 'copyTrading.validation.percent' } });
  expect(parseCopyForm(form({ stopBelow: '1e3' }))).toEqual({ errors: { stopBelow: 'copyTrading.validation.stop' } });
});

test('the minimum may not be above the maximum (compared as decimals)', () => {
  expect(parseCopyForm(form({ minStake: '9.5', maxStake: '10' }))).toHaveProperty('settings');
  expect(parseCopyForm(form({ minStake: '100.01', maxStake: '100' }))).toEqual({ errors: { maxStake: 'copyTrading.validation.minAboveMax' } });
});

test('settings in force fill the form', () => {
  expect(formOf({ account: 'real', percent: 25, minStake: '1', maxStake: '50', stopBelow: '0' })).toEqual({
    account: 'real',
    percent: '25',
    minStake: '1',
    maxStake: '50',
    stopBelow: '0',
  });
});
