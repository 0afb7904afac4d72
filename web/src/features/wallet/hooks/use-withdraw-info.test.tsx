import { act, renderHook, waitFor } from '@testing-library/react';
import { beforeEach, vi } from 'vitest';

import { mockApi } from '@/testing/api';

import type { WithdrawInfo } from '../api';
import { isBlocked, useWithdrawInfo } from './use-withdraw-info';

const info: WithdrawInfo = { feeRate: '0.01', feeFixed: '1', minAmount: '10', maxAmount: '50000', available: '400', addresses: [], requiresTwoFactor: false, blockedUntil: null };

beforeEach(() => vi.unstubAllGlobals());

test('read each time the dialog opens, not while it is closed; the answer is heard', async () => {
  const api = mockApi({ 'GET /api/wallet/withdraw-info': () => ({ data: info }) });
  const onLoaded = vi.fn();
  const { result, rerender } = renderHook(({ open }) => useWithdrawInfo(open, onLoaded), { initialProps: { open: false } });
  expect(api.count('GET /api/wallet/withdraw-info')).toBe(0);
  rerender({ open: true });
  await waitFor(() => expect(result.current.info).toEqual(info));
  expect(onLoaded).toHaveBeenCalledWith(info);
  expect(result.current.blocked).toBe(false);
  rerender({ open: false });
  rerender({ open: true });
  await waitFor(() => expect(api.count('GET /api/wallet/withdraw-info')).toBe(2));
});

test('blocked while the time after a password change lasts', async () => {
  mockApi({ 'GET /api/wallet/withdraw-info': () => ({ data: { ...info, blockedUntil: Date.now() + 60_000 } }) });
  const { result } = renderHook(() => useWithdrawInfo(true));
  await waitFor(() => expect(result.current.blocked).toBe(true));
  expect(isBlocked(null)).toBe(false);
  expect(isBlocked({ ...info, blockedUntil: Date.now() - 1 })).toBe(false);
});

test('a failed read says why, and reload asks again', async () => {
  let fail = true;
  mockApi({ 'GET /api/wallet/withdraw-info': () => (fail ? { status: 500, code: 'INTERNAL', message: 'Server error, please try again later' } : { data: info }) });
  const { result } = renderHook(() => useWithdrawInfo(true));
  await waitFor(() => expect(result.current.loadError).toBe('Server error, please try again later'));
  fail = false;
  act(() => result.current.reload());
  expect(result.current.loadError).toBeNull();
  await waitFor(() => expect(result.current.info).toEqual(info));
});
