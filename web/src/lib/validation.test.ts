import { checkEmail, isTotpCode } from './validation';

test('an authenticator code is exactly 6 digits', () => {
  for (const good of ['123456', ' 000001 ']) expect(isTotpCode(good), good).toBe(true);
  for (const bad of ['', '12345', '1234567', '12 456', 'abcdef', '١٢٣٤٥٦']) expect(isTotpCode(bad), bad).toBe(false);
});

test('an e-mail address is required and shaped like one', () => {
  expect(checkEmail('a@b.co')).toBeUndefined();
  expect(checkEmail(' ')).toBe('auth.validation.emailRequired');
  expect(checkEmail('a@b')).toBe('auth.validation.emailInvalid');
});
