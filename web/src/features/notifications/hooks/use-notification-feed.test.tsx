import { act, renderHook } from '@testing-library/react';
import { beforeEach, vi } from 'vitest';

import { formatDateTime } from '@/lib/format';
import { i18n } from '@/lib/i18n';
import { mockApi } from '@/testing/api';
import { useSession } from '@/stores/session';

import { notificationDb } from '../db';
import { displayParams } from '../params';
import { useNotifications } from '../stores/notifications';
import { usePreferences } from '../stores/preferences';
import { useNotificationFeed } from './use-notification-feed';

/** The private stream's listeners, by frame type, as the feed registers them. */
const listeners = new Map<string, (frame: { type: string; data: unknown }) => void>();
let authenticated = false;
vi.mock('@/lib/ws', () => ({
  useWsEvent: (type: string, listener: (frame: { type: string; data: unknown }) => void) => listeners.set(type, listener),
  useConnectionStatus: () => ({ state: 'open', attempt: 0, authenticated }),
}));

beforeEach(async () => {
  vi.unstubAllGlobals();
  usePreferences.getState().reset();
  await notificationDb.remove((await notificationDb.all()).map((n) => n.id));
  useSession.setState({ token: 't', user: null });
  useNotifications.setState({ items: [], sound: false });
  authenticated = false;
  window.localStorage.clear();
});

const settings = (priceAlerts: boolean) => ({ data: { email: true, priceAlerts, trade: true, system: true, marketing: true, newsletter: true } });
const fired = (id: number, firedAt: number) => ({ id, symbol: 'BTCUSDT', price: '95000', direction: 'above', createdAt: firedAt - 1000, firedAt, firedPrice: '95000.5', firedSequence: 7 });

test('a price alert is announced once, live, and ones fired while away are caught up on authentication', async () => {
  const now = Date.now();
  const fetched: string[] = [];
  mockApi({
    'GET /api/user/notification-settings': () => settings(true),
    'GET /api/user/price-alerts/fired': (_body, url) => {
      fetched.push(url.search);
      // Newest first: 12 fired an hour ago, 11 two days ago (too old for a first catch-up).
      return { data: { items: [fired(12, now - 3_600_000), fired(11, now - 2 * 86_400_000)], total: 2 } };
    },
  });
  useSession.setState({ user: { uid: 5 } as never });
  authenticated = true;
  const { rerender } = renderHook(() => useNotificationFeed());
  await vi.waitFor(() => expect(useNotifications.getState().items.map((n) => n.id)).toEqual(['alert-12']));
  expect(fetched).toHaveLength(1);
  expect(useNotifications.getState().items[0]).toMatchObject({ type: 'trade', priority: 'high', params: { symbol: 'BTCUSDT', price: '95000.5', level: '95000' } });

  // Live: once, however often the frame comes.
  await vi.waitFor(() => expect(usePreferences.getState().loaded).toBe(true));
  const emit = (data: unknown) => act(() => listeners.get('priceAlert')!({ type: 'priceAlert', data }));
  emit(fired(13, now));
  emit(fired(13, now));
  await vi.waitFor(() => expect(useNotifications.getState().items.map((n) => n.id)).toEqual(['alert-13', 'alert-12']));
  // The newest seen is remembered per UID: a later catch-up adds nothing already shown.
  expect(JSON.parse(window.localStorage.getItem('priceAlertsSeen') ?? '{}')).toEqual({ '5': 13 });
  rerender();
  expect(useNotifications.getState().items).toHaveLength(2);
});

test('price alerts the user switched off are neither kept nor sounded', async () => {
  mockApi({ 'GET /api/user/notification-settings': () => settings(false) });
  renderHook(() => useNotificationFeed());
  await vi.waitFor(() => expect(usePreferences.getState().loaded).toBe(true));
  act(() => listeners.get('priceAlert')!({ type: 'priceAlert', data: fired(3, Date.now()) }));
  expect(useNotifications.getState().items).toEqual([]);
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

test('a notice for another language is not kept; a withdrawn notice leaves the centre and the browser database', async () => {
  mockApi({ 'GET /api/user/notification-settings': () => settings(true) });
  renderHook(() => useNotificationFeed());
  await vi.waitFor(() => expect(usePreferences.getState().loaded).toBe(true));
  const emit = (type: string, data: unknown) => act(() => listeners.get(type)!({ type, data }));
  const time = Date.now();
  emit('notice', { id: 40, title: 'Wartung', body: 'Sonntag', lang: 'de-DE', time });
  emit('notice', { id: 41, title: 'Maintenance', body: 'Sunday', lang: 'en-US', time: time + 1 });
  emit('notice', { id: 42, title: 'For all', body: 'Everyone', lang: '', time: time + 2 });
  await vi.waitFor(() => expect(useNotifications.getState().items.map((n) => n.id)).toEqual(['notice-42', 'notice-41']));
  expect(useNotifications.getState().items[1]).toMatchObject({ type: 'system', title: 'Maintenance', message: 'Sunday', lang: 'en-US' });
  await vi.waitFor(async () => expect((await notificationDb.all()).map((n) => n.id).sort()).toEqual(['notice-41', 'notice-42']));

  emit('noticeWithdrawn', { id: 41 });
  expect(useNotifications.getState().items.map((n) => n.id)).toEqual(['notice-42']);
  await vi.waitFor(async () => expect((await notificationDb.all()).map((n) => n.id)).toEqual(['notice-42']));
});

/** A two-factor pause as the server sends it: 5 wrong codes, 15 minutes from `time`. */
const paused = (time: number) => ({ kind: 'twoFactorLocked', time, until: time + 15 * 60_000, failures: 5 });

test('a two-factor pause is announced at once, high priority, whatever the switches say, and on the desktop with its end in words', async () => {
  const shown: Array<{ title: string; body: string }> = [];
  vi.stubGlobal(
    'Notification',
    class {
      static permission = 'granted';
      constructor(title: string, options: { body: string }) {
        shown.push({ title, body: options.body });
      }
      close() {}
    },
  );
  mockApi({ 'GET /api/user/notification-settings': () => ({ data: { email: false, priceAlerts: false, trade: false, system: false, marketing: false, newsletter: false } }) });
  useSession.setState({ user: { uid: 5 } as never });
  renderHook(() => useNotificationFeed());
  await vi.waitFor(() => expect(usePreferences.getState().loaded).toBe(true));
  const event = paused(Date.now());
  const emit = () => act(() => listeners.get('security')!({ type: 'security', data: event }));
  emit();
  emit();
  await vi.waitFor(() => expect(useNotifications.getState().items.map((n) => n.id)).toEqual([`security-${event.until}`]));
  expect(useNotifications.getState().items[0]).toMatchObject({ type: 'system', priority: 'high', time: event.time, params: { until: event.until, failures: 5 } });
  expect(shown).toEqual([
    {
      title: 'Two-factor actions paused',
      body: `Too many wrong authenticator codes were entered. Until ${formatDateTime(event.until, 'en-US')}, two-factor sign-in, turning it off, transfers and withdrawals are refused. If this was not you, change your password.`,
    },
  ]);
  expect(JSON.parse(window.localStorage.getItem('securityEventsSeen') ?? '{}')).toEqual({ '5': event.until });
});

test('security events missed while away are caught up on each authentication: the first time from the last 24 h, then only newer ones', async () => {
  const now = Date.now();
  let events = [paused(now - 3_600_000), paused(now - 2 * 86_400_000)];
  const fetched: string[] = [];
  mockApi({
    'GET /api/user/notification-settings': () => settings(true),
    'GET /api/user/security-events': (_body, url) => {
      fetched.push(url.search);
      return { data: { items: events, total: events.length } };
    },
  });
  useSession.setState({ user: { uid: 5 } as never });
  authenticated = true;
  const { rerender } = renderHook(() => useNotificationFeed());
  const ids = () => useNotifications.getState().items.map((n) => n.id);
  await vi.waitFor(() => expect(ids()).toEqual([`security-${events[0]!.until}`]));
  expect(fetched).toEqual(['?page=1&pageSize=20']);

  // The user removes it; a reconnect announces only what is newer than the newest shown.
  await act(() => useNotifications.getState().remove(`security-${events[0]!.until}`));
  const fresh = paused(now - 60_000);
  events = [fresh, ...events];
  authenticated = false;
  rerender();
  authenticated = true;
  rerender();
  await vi.waitFor(() => expect(ids()).toEqual([`security-${fresh.until}`]));
  expect(fetched).toHaveLength(2);
  expect(JSON.parse(window.localStorage.getItem('securityEventsSeen') ?? '{}')).toEqual({ '5': fresh.until });
});

test('copy frames become notifications: a follower hears why copying ended and a copy refused, a leader who started or stopped copying them; nobody hears their own acts', async () => {
  mockApi({ 'GET /api/user/notification-settings': () => settings(true) });
  useSession.setState({ user: { uid: 7 } as never });
  renderHook(() => useNotificationFeed());
  await vi.waitFor(() => expect(usePreferences.getState().loaded).toBe(true));
  const emit = (type: string, data: unknown) => act(() => listeners.get(type)!({ type, data }));
  const shown = () =>
    useNotifications
      .getState()
      .items.map((n) => `${i18n.t(n.titleKey!)} | ${i18n.t(n.messageKey!, displayParams(n.params, i18n.t, 'en-US'))}`)
      .reverse();

  // As the follower (UID 7) of trader 3: their own acts are not told (the frames are handled in order).
  emit('copy', { follower: 7, leader: 3, change: 'started', reason: null });
  emit('copy', { follower: 7, leader: 3, change: 'updated', reason: null });
  emit('copy', { follower: 7, leader: 3, change: 'ended', reason: 'by_follower' });
  emit('copy', { follower: 7, leader: 3, change: 'ended', reason: 'stop_reached' });
  await vi.waitFor(() => expect(useNotifications.getState().items).toHaveLength(1));
  emit('copy.refused', { leader: 3, contractId: 120, code: 'INSUFFICIENT_BALANCE' });
  emit('copy.refused', { leader: 3, contractId: 120, code: 'INSUFFICIENT_BALANCE' });
  emit('copy.refused', { leader: 4, contractId: 121, code: 'SOMETHING_NEW' });
  await vi.waitFor(() => expect(useNotifications.getState().items).toHaveLength(3));
  emit('copy', { follower: 7, leader: 4, change: 'ended', reason: 'leader_stopped' });
  emit('copy', { follower: 7, leader: 5, change: 'ended', reason: 'by_leader' });
  await vi.waitFor(() => expect(useNotifications.getState().items).toHaveLength(5));
  expect(shown()).toEqual([
    'Copying stopped | Copying trader #3 stopped: your balance fell below your stop',
    "Copy refused | Your copy of trader #3's order was refused: insufficient balance",
    "Copy refused | Your copy of trader #4's order was refused: error SOMETHING_NEW",
    'Copying stopped | Copying trader #4 stopped: the trader stopped sharing',
    'Copying stopped | Copying trader #5 stopped: the trader removed you',
  ]);
  expect(useNotifications.getState().items.find((n) => n.id === 'copy-refused-3-120')).toMatchObject({ type: 'trade', priority: 'medium', data: { path: '/copy/3' } });
  expect(useNotifications.getState().items.at(-1)).toMatchObject({ type: 'trade', priority: 'high', data: { path: '/copy/3' } });

  // As the leader (UID 3) of follower 7.
  await act(() => useNotifications.getState().clear('trade'));
  act(() => useSession.setState({ user: { uid: 3 } as never }));
  emit('copy', { follower: 7, leader: 3, change: 'started', reason: null });
  emit('copy', { follower: 7, leader: 3, change: 'updated', reason: null });
  emit('copy', { follower: 8, leader: 3, change: 'ended', reason: 'by_leader' });
  emit('copy', { follower: 9, leader: 3, change: 'ended', reason: 'leader_stopped' });
  emit('copy', { follower: 7, leader: 3, change: 'ended', reason: 'by_follower' });
  await vi.waitFor(() => expect(useNotifications.getState().items).toHaveLength(2));
  expect(shown()).toEqual(['Copy trading | #7 started copying you', 'Copy trading | #7 stopped copying you']);
  await new Promise((r) => setTimeout(r, 20));
  expect(useNotifications.getState().items).toHaveLength(2);
  expect(useNotifications.getState().items[0]).toMatchObject({ priority: 'low', data: { path: '/copy' } });
});
