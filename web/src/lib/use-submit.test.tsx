import { act, renderHook } from '@testing-library/react';
import { vi } from 'vitest';

import { ApiError } from './api-client';
import { changeLanguage } from './i18n';
import { useSubmit } from './use-submit';

/** A call the test answers when it likes. */
function deferred() {
  let resolve!: () => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<void>((ok, fail) => {
    resolve = ok;
    reject = fail;
  });
  return { promise, resolve, reject };
}

test('busy while the call is out, and not after it succeeded', async () => {
  const { result } = renderHook(() => useSubmit());
  const call = deferred();
  let done!: Promise<boolean>;
  act(() => {
    done = result.current.run(() => call.promise);
  });
  expect(result.current.busy).toBe(true);
  await act(async () => call.resolve());
  expect(await done).toBe(true);
  expect(result.current.busy).toBe(false);
  expect(result.current.error).toBeNull();
});

test('busy cleared after a failure, which is shown for the whole form', async () => {
  const { result } = renderHook(() => useSubmit());
  const call = deferred();
  let done!: Promise<boolean>;
  act(() => {
    done = result.current.run(() => call.promise);
  });
  expect(result.current.busy).toBe(true);
  await act(async () => call.reject(new ApiError('INSUFFICIENT_BALANCE', 'Insufficient balance', 400)));
  expect(await done).toBe(false);
  expect(result.current.busy).toBe(false);
  expect(result.current.error).toBe('Insufficient balance');
  expect(result.current.fieldErrors).toEqual({});
});

test('a call while one is out is not made: nothing is queued or sent again', async () => {
  const { result } = renderHook(() => useSubmit());
  const call = deferred();
  const first = vi.fn(() => call.promise);
  const second = vi.fn(() => Promise.resolve());
  let again!: Promise<boolean>;
  act(() => {
    void result.current.run(first);
    // The same event, before a render: the guard is not the state.
    again = result.current.run(second);
  });
  expect(await again).toBe(false);
  await act(async () => call.resolve());
  expect(first).toHaveBeenCalledTimes(1);
  expect(second).not.toHaveBeenCalled();
});

test('a field error goes to that field; a code the form names goes to its field', async () => {
  const { result } = renderHook(() => useSubmit<'price' | 'code'>({ fields: ['price'], codes: { INVALID_TOTP: 'code' } }));
  await act(() => result.current.run(() => Promise.reject(new ApiError('VALIDATION', 'Price too far', 400, 'price'))));
  expect(result.current.fieldErrors).toEqual({ price: 'Price too far' });
  expect(result.current.error).toBeNull();
  await act(() => result.current.run(() => Promise.reject(new ApiError('INVALID_TOTP', 'Wrong code', 400))));
  // A new call clears what the last one showed.
  expect(result.current.fieldErrors).toEqual({ code: 'Wrong code' });
  await act(() => result.current.run(() => Promise.reject(new ApiError('VALIDATION', 'Bad', 400, 'elsewhere'))));
  expect(result.current.fieldErrors).toEqual({});
  expect(result.current.error).toBe('Bad');
});

test('a call clears the messages the form showed; a field can be set or cleared alone', async () => {
  const { result } = renderHook(() => useSubmit<'amount' | 'totp'>());
  act(() => result.current.show({ amount: 'Too much', totp: 'Six digits' }, 'Earlier failure'));
  expect(result.current.error).toBe('Earlier failure');
  act(() => result.current.setFieldError('amount'));
  expect(result.current.fieldErrors).toEqual({ totp: 'Six digits' });
  act(() => result.current.setFieldError('amount', 'Too little'));
  expect(result.current.fieldErrors).toEqual({ amount: 'Too little', totp: 'Six digits' });
  act(() => result.current.setError(null));
  expect(result.current.fieldErrors).toEqual({ amount: 'Too little', totp: 'Six digits' });
  act(() => result.current.show({ totp: 'Six digits' }, 'Again'));
  expect(result.current.fieldErrors).toEqual({ totp: 'Six digits' });
  act(() => result.current.show({}));
  expect(result.current.error).toBeNull();
  act(() => result.current.show({ amount: 'Too much' }, 'Earlier failure'));
  await act(() => result.current.run(() => Promise.resolve()));
  expect(result.current.fieldErrors).toEqual({});
  expect(result.current.error).toBeNull();
});

test('options of a run: the fallback text, quiet codes, onError, and staying busy after a success that hands the form on', async () => {
  const onError = vi.fn();
  const { result } = renderHook(() => useSubmit({ fallback: 'auth.errors.loginFailed', onError }));
  const network = new TypeError('failed to fetch');
  await act(() => result.current.run(() => Promise.reject(network)));
  expect(result.current.error).toBe('Login failed');
  expect(onError).toHaveBeenCalledWith(network, expect.objectContaining({ field: null, code: null }));

  const step = new ApiError('TOTP_REQUIRED', 'Enter your code', 401);
  await act(() => result.current.run(() => Promise.reject(step), { quiet: ['TOTP_REQUIRED'] }));
  expect(result.current.error).toBeNull();
  expect(onError).toHaveBeenLastCalledWith(step, expect.objectContaining({ code: 'TOTP_REQUIRED' }));

  await act(() => result.current.run(() => Promise.resolve(), { holdOnSuccess: true }));
  expect(result.current.busy).toBe(true);
  const later = vi.fn(() => Promise.resolve());
  await act(() => result.current.run(later));
  expect(later).not.toHaveBeenCalled();
});

test('messages may stay while the call is out, until its answer replaces them', async () => {
  const { result } = renderHook(() => useSubmit<'amount' | 'address'>({ keepMessages: true }));
  act(() => result.current.show({ amount: 'Too much' }, 'Earlier failure'));
  const call = deferred();
  let done!: Promise<boolean>;
  act(() => {
    done = result.current.run(() => call.promise, { rest: 'address' });
  });
  expect(result.current.fieldErrors).toEqual({ amount: 'Too much' });
  expect(result.current.error).toBe('Earlier failure');
  await act(async () => call.reject(new ApiError('INVALID_ADDRESS', 'Not an address', 400)));
  await done;
  expect(result.current.fieldErrors).toEqual({ address: 'Not an address' });
  expect(result.current.error).toBeNull();
  await act(() => result.current.run(() => Promise.resolve()));
  expect(result.current.fieldErrors).toEqual({});
});

test('a holding form is free again after a failure', async () => {
  const { result } = renderHook(() => useSubmit({ holdOnSuccess: true }));
  await act(() => result.current.run(() => Promise.reject(new ApiError('FAILED', 'No', 400))));
  expect(result.current.busy).toBe(false);
  expect(result.current.error).toBe('No');
});

test('a catalogue text named for a code is shown in the language of the moment', async () => {
  const { result, rerender } = renderHook(() => useSubmit<'username'>({ codes: { USERNAME_EXISTS: 'username' }, texts: { USERNAME_EXISTS: 'auth.errors.usernameExists' } }));
  await act(() => result.current.run(() => Promise.reject(new ApiError('USERNAME_EXISTS', 'server text', 400))));
  expect(result.current.fieldErrors.username).toBe('Username already exists');
  try {
    await act(() => changeLanguage('de-DE'));
    rerender();
    expect(result.current.fieldErrors.username).toBe('Der Benutzername ist bereits vergeben');
  } finally {
    await act(() => changeLanguage('en-US'));
  }
});
