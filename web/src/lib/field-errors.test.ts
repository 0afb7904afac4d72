import { ApiError } from './api-client';
import { placeError } from './field-errors';

const refusal = (code: string, field?: string) => new ApiError(code, `server says ${code}`, 400, field);

test('a refusal with a field of the form goes to that field, with the server message', () => {
  expect(placeError(refusal('VALIDATION', 'price'), { fields: ['price'] })).toEqual({ field: 'price', message: 'server says VALIDATION', key: null, code: 'VALIDATION' });
  expect(placeError(refusal('VALIDATION', 'newPassword'), { fields: { newPassword: 'next' } }).field).toBe('next');
});

test('a field the form does not have, or none, is for the whole form', () => {
  expect(placeError(refusal('VALIDATION', 'other'), { fields: ['price'] }).field).toBeNull();
  expect(placeError(refusal('VALIDATION'), { fields: ['price'] }).field).toBeNull();
  expect(placeError(refusal('VALIDATION', 'price')).field).toBeNull();
  // Only the map's own names: nothing inherited by every object.
  expect(placeError(refusal('VALIDATION', 'toString'), { fields: { newPassword: 'next' } }).field).toBeNull();
  expect(placeError(refusal('constructor'), { codes: { WRONG_PASSWORD: 'current' } }).field).toBeNull();
});

test('a code names its field before the server field does; the rest goes where the form says', () => {
  const map = { codes: { WRONG_PASSWORD: 'password' }, fields: ['password', 'code'], rest: 'code' } as const;
  expect(placeError(refusal('WRONG_PASSWORD', 'code'), map).field).toBe('password');
  expect(placeError(refusal('VALIDATION', 'password'), map).field).toBe('password');
  expect(placeError(refusal('LOCKED'), map).field).toBe('code');
});

test('a code may have the catalogue text instead of the server message', () => {
  expect(placeError(refusal('USERNAME_EXISTS'), { codes: { USERNAME_EXISTS: 'username' }, texts: { USERNAME_EXISTS: 'auth.errors.usernameExists' } })).toEqual({
    field: 'username',
    message: 'server says USERNAME_EXISTS',
    key: 'auth.errors.usernameExists',
    code: 'USERNAME_EXISTS',
  });
});

test('a failure that is not the server answer has the fallback text, for the whole form or the rest field', () => {
  expect(placeError(new Error('boom'), {}, 'auth.errors.loginFailed')).toEqual({ field: null, message: 'Login failed', key: null, code: null });
  expect(placeError(new Error('boom'), { fields: ['uid'] }).message).toBe('Operation failed');
  expect(placeError(new Error('boom'), { rest: 'uid' }).field).toBe('uid');
});
