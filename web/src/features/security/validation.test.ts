import { checkPasswordChange } from './validation';

test('the spec §5 change-password rules, in order', () => {
  const form = { current: 'secret1', next: 'secret22', confirm: 'secret22' };
  expect(checkPasswordChange({ ...form, current: '' }, true)).toBe('security.validation.fillAll');
  expect(checkPasswordChange({ ...form, confirm: '' }, true)).toBe('security.validation.fillAll');
  expect(checkPasswordChange({ ...form, next: '12345', confirm: '12345' }, true)).toBe('security.validation.min');
  expect(checkPasswordChange({ ...form, confirm: 'secret23' }, true)).toBe('security.validation.mismatch');
  expect(checkPasswordChange(form, true)).toBeUndefined();
  // A wallet user sets a first password without a current one.
  expect(checkPasswordChange({ ...form, current: '' }, false)).toBeUndefined();
});
