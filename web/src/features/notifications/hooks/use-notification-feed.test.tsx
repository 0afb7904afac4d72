import { act, renderHook } from '@testing-library/react';
import { beforeEach, vi } from 'vitest';

import { mockApi } from '@/testing/api';
import { useSession } from '@/stores/session';

import { useNotifications } from '../stores/notifications';
import { usePreferences } from '../stores/preferences';
import { useNotificationFeed } from './use-notification-feed';

/** The private stream's listeners, by frame type, as the feed registers them. */
const listeners = new Map<string, (frame: { type: string; data: unknown }) => void>();
vi.mock('@/lib/ws', () => ({
  useWsEvent: (type: string, listener: (frame: { type: string; data: unknown }) => void) => listeners.set(type, listener),
}));

beforeEach(() => {
  vi.unstubAllGlobals();
  useSession.setState({ token: 't' });
  useNotifications.setState({ items: [], sound: false });
});

test('trade and system switches decide what the notification centre keeps', async () => {
  mockApi({ 'GET /api/user/notification-settings': () => ({ data: { email: true, priceAlerts: true, trade: false, system: true, marketing: true, newsletter: true } }) });
  renderHook(() => useNotificationFeed());
  await vi.waitFor(() => expect(usePreferences.getState().loaded).toBe(true));
  const emit = (type: string, data: unknown) => act(() => listeners.get(type)!({ type, data }));
  emit('order.settled', { contractId: 9, symbol: 'BTCUSDT', result: 'profit', outcome: 'win', amount: '18.5', profit: '8.5', settledAt: Date.now(), exitPrice: '1' });
  emit('notification', { kind: 'deposit', order: 3, status: 'completed', approved: true, remark: '' });
  await vi.waitFor(() => expect(useNotifications.getState().items.map((n) => n.id)).toEqual(['deposit-3-completed']));
});
