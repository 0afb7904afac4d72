import { act, renderHook } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import { mockApi } from '@/testing/api';

vi.mock('@/lib/tone', () => ({ playTone: vi.fn() }));
const { playTone } = await import('@/lib/tone');
const { usePendingBadges } = await import('./use-pending-badges');

/** Lets the poll's fetches and their promise chains finish under fake timers. */
async function settle() {
  await act(async () => {
    await vi.advanceTimersByTimeAsync(0);
  });
}

describe('usePendingBadges', () => {
  const counts = { recharge: 2, withdraw: 7 };

  beforeEach(() => {
    vi.useFakeTimers();
    vi.mocked(playTone).mockClear();
    mockApi({
      'GET /api/admin/recharge-orders/pending-count': () => ({ data: { count: counts.recharge } }),
      'GET /api/admin/withdraw-orders/pending-count': () => ({ data: { count: counts.withdraw } }),
    });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('polls at once and every 60 s; a rise animates for 60 s with one tone; the first poll never does', async () => {
    counts.recharge = 2;
    counts.withdraw = 7;
    const { result } = renderHook(() => usePendingBadges(['recharge', 'withdraw']));
    await settle();
    expect(result.current).toEqual([
      { kind: 'recharge', count: 2, animating: false },
      { kind: 'withdraw', count: 7, animating: false },
    ]);
    expect(playTone).not.toHaveBeenCalled();

    counts.recharge = 3;
    await act(async () => {
      await vi.advanceTimersByTimeAsync(59_999);
    });
    expect(result.current[0]?.count).toBe(2); // not polled again before 60 s
    await act(async () => {
      await vi.advanceTimersByTimeAsync(1);
    });
    expect(result.current[0]).toEqual({ kind: 'recharge', count: 3, animating: true });
    expect(result.current[1]?.animating).toBe(false);
    expect(playTone).toHaveBeenCalledTimes(1);

    // The next poll sees no rise: no tone; the animation ends 60 s after the rise.
    await act(async () => {
      await vi.advanceTimersByTimeAsync(60_000);
    });
    expect(playTone).toHaveBeenCalledTimes(1);
    expect(result.current[0]).toEqual({ kind: 'recharge', count: 3, animating: false });
  });

  it('polls only the kinds it is given and keeps the last count when a poll fails', async () => {
    const api = mockApi({
      'GET /api/admin/withdraw-orders/pending-count': () => ({ data: { count: 150 } }),
    });
    const { result } = renderHook(() => usePendingBadges(['withdraw']));
    await settle();
    expect(result.current).toEqual([{ kind: 'withdraw', count: 150, animating: false }]);
    expect(api.count('GET /api/admin/recharge-orders/pending-count')).toBe(0);

    mockApi({ 'GET /api/admin/withdraw-orders/pending-count': () => ({ status: 500 }) });
    await act(async () => {
      await vi.advanceTimersByTimeAsync(60_000);
    });
    expect(result.current[0]?.count).toBe(150);
  });
});
