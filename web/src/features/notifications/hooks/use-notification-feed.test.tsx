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

/** A copy note as the server sends it (a `copy` or `copy.refused` frame, or a row of `GET /api/copy/notes`). */
const started = (time: number, follower: number, leader: number) => ({ kind: 'copy', time, follower, leader, change: 'started' });
const ended = (time: number, follower: number, leader: number, reason?: string) => ({ kind: 'copy', time, follower, leader, change: 'ended', ...(reason ? { reason } : {}) });
const refused = (time: number, follower: number, leader: number, contractId: number, code: string) => ({ kind: 'copy.refused', time, follower, leader, contractId, code });

/** The centre's notifications in words, oldest first. */
const shown = () =>
  useNotifications
    .getState()
    .items.map((n) => `${i18n.t(n.titleKey!)} | ${i18n.t(n.messageKey!, displayParams(n.params, i18n.t, 'en-US'))}`)
    .reverse();

test('copy frames become notifications, each once: a follower hears why copying ended and a copy refused, a leader who started or stopped copying them', async () => {
  mockApi({ 'GET /api/user/notification-settings': () => settings(true) });
  useSession.setState({ user: { uid: 7 } as never });
  renderHook(() => useNotificationFeed());
  await vi.waitFor(() => expect(usePreferences.getState().loaded).toBe(true));
  const emit = (type: string, data: unknown) => act(() => listeners.get(type)!({ type, data }));
  const t = Date.now() - 3_600_000;

  // As the follower (UID 7) of trader 3 (the frames are handled in order).
  emit('copy', ended(t + 2, 7, 3, 'stop_reached'));
  await vi.waitFor(() => expect(useNotifications.getState().items).toHaveLength(1));
  // The same note twice (a second tab, a reconnect) is one notification.
  emit('copy.refused', refused(t + 3, 7, 3, 120, 'INSUFFICIENT_BALANCE'));
  emit('copy.refused', refused(t + 3, 7, 3, 120, 'INSUFFICIENT_BALANCE'));
  emit('copy.refused', refused(t + 4, 7, 4, 121, 'SOMETHING_NEW'));
  await vi.waitFor(() => expect(useNotifications.getState().items).toHaveLength(3));
  emit('copy', ended(t + 5, 7, 4, 'leader_stopped'));
  emit('copy', ended(t + 6, 7, 5, 'by_leader'));
  // A reason this app does not know is told without one.
  emit('copy', ended(t + 7, 7, 6, 'something_new'));
  await vi.waitFor(() => expect(useNotifications.getState().items).toHaveLength(6));
  expect(shown()).toEqual([
    'Copying stopped | Copying trader #3 stopped: your balance fell below your stop',
    "Copy refused | Your copy of trader #3's order was refused: insufficient balance",
    "Copy refused | Your copy of trader #4's order was refused: error SOMETHING_NEW",
    'Copying stopped | Copying trader #4 stopped: the trader stopped sharing',
    'Copying stopped | Copying trader #5 stopped: the trader removed you',
    'Copying stopped | Copying trader #6 stopped',
  ]);
  // Ids and times are the note's, never the moment it was received.
  expect(useNotifications.getState().items.find((n) => n.id === `copy-copy.refused-${t + 3}-7-3-120`)).toMatchObject({
    type: 'trade',
    priority: 'medium',
    time: t + 3,
    data: { path: '/copy/3' },
  });
  expect(useNotifications.getState().items.at(-1)).toMatchObject({ id: `copy-copy-${t + 2}-7-3-ended`, time: t + 2, type: 'trade', priority: 'high', data: { path: '/copy/3' } });
  expect(JSON.parse(window.localStorage.getItem('copyNotesSeen') ?? '{}')).toEqual({ '7': t + 7 });

  // As the leader (UID 3): told that a follower started or stopped, without why; every end
  // that arrives is told, once.
  await act(() => useNotifications.getState().clear('trade'));
  act(() => useSession.setState({ user: { uid: 3 } as never }));
  const minute = 60_000;
  emit('copy', started(t + minute, 7, 3));
  emit('copy', ended(t + 5 * minute, 7, 3));
  emit('copy', ended(t + 10 * minute, 8, 3));
  emit('copy', ended(t + 10 * minute, 8, 3));
  emit('copy', ended(t + 20 * minute, 9, 3));
  await vi.waitFor(() => expect(useNotifications.getState().items).toHaveLength(4));
  expect(shown()).toEqual([
    'Copy trading | #7 started copying you',
    'Copy trading | #7 stopped copying you',
    'Copy trading | #8 stopped copying you',
    'Copy trading | #9 stopped copying you',
  ]);
  expect(useNotifications.getState().items[0]).toMatchObject({ id: `copy-copy-${t + 20 * minute}-9-3-ended`, priority: 'low', data: { path: '/copy' } });
  // Another user's notes, should one reach this connection, are not told.
  emit('copy.refused', refused(t + 40 * minute, 9, 3, 122, 'INSUFFICIENT_BALANCE'));
  emit('copy', ended(t + 41 * minute, 9, 4, 'by_leader'));
  await new Promise((r) => setTimeout(r, 20));
  expect(useNotifications.getState().items).toHaveLength(4);
});

test('copy notes missed while away are caught up on authentication, once; a note whose frame came live is not added again', async () => {
  const now = Date.now();
  const day = 86_400_000;
  // Newest first: trader 3's stop reached a minute ago, a refusal, trader 5's removal, and an
  // end two days ago (too old for a first catch-up).
  let rows: unknown[] = [
    ended(now - 60_000, 7, 3, 'stop_reached'),
    refused(now - 120_000, 7, 4, 121, 'INSUFFICIENT_BALANCE'),
    ended(now - 180_000, 7, 5, 'by_leader'),
    ended(now - 2 * day, 7, 6, 'by_leader'),
  ];
  const fetched: string[] = [];
  mockApi({
    'GET /api/user/notification-settings': () => settings(true),
    'GET /api/copy/notes': (_body, url) => {
      fetched.push(url.search);
      return { data: { items: rows, total: rows.length } };
    },
  });
  useSession.setState({ user: { uid: 7 } as never });
  authenticated = true;
  const { rerender } = renderHook(() => useNotificationFeed());
  const ids = () => useNotifications.getState().items.map((n) => n.id);
  const caughtUp = [`copy-copy-${now - 60_000}-7-3-ended`, `copy-copy.refused-${now - 120_000}-7-4-121`, `copy-copy-${now - 180_000}-7-5-ended`];
  await vi.waitFor(() => expect(ids()).toEqual(caughtUp));
  expect(fetched).toEqual(['?page=1&pageSize=20']);
  expect(shown()).toEqual([
    'Copying stopped | Copying trader #5 stopped: the trader removed you',
    "Copy refused | Your copy of trader #4's order was refused: insufficient balance",
    'Copying stopped | Copying trader #3 stopped: your balance fell below your stop',
  ]);
  expect(JSON.parse(window.localStorage.getItem('copyNotesSeen') ?? '{}')).toEqual({ '7': now - 60_000 });

  // A reconnect reads them again: nothing is added twice.
  const reconnect = () => {
    authenticated = false;
    rerender();
    authenticated = true;
    rerender();
  };
  reconnect();
  await vi.waitFor(() => expect(fetched).toHaveLength(2));
  await new Promise((r) => setTimeout(r, 20));
  expect(ids()).toEqual(caughtUp);

  // Trader 8 stops sharing while the app is open: told live. The user removes it; the next
  // catch-up reads that note back, with one that came while the app was closed.
  await vi.waitFor(() => expect(usePreferences.getState().loaded).toBe(true));
  const live = ended(now - 30_000, 7, 8, 'leader_stopped');
  act(() => listeners.get('copy')!({ type: 'copy', data: live }));
  await vi.waitFor(() => expect(ids()).toContain(`copy-copy-${now - 30_000}-7-8-ended`));
  await act(() => useNotifications.getState().remove(`copy-copy-${now - 30_000}-7-8-ended`));
  const missed = ended(now - 10_000, 7, 9, 'by_leader');
  rows = [missed, live, ...rows];
  reconnect();
  await vi.waitFor(() => expect(ids()).toEqual([`copy-copy-${now - 10_000}-7-9-ended`, ...caughtUp]));
  expect(fetched).toHaveLength(3);
  expect(JSON.parse(window.localStorage.getItem('copyNotesSeen') ?? '{}')).toEqual({ '7': now - 10_000 });
});

test('a copy note received live while the catch-up is under way is one notification', async () => {
  const now = Date.now();
  const note = ended(now - 5_000, 7, 3, 'by_leader');
  let answer: (value: unknown) => void = () => undefined;
  mockApi({
    'GET /api/user/notification-settings': () => settings(true),
    // The catch-up's answer comes after the frame, and holds the same note.
    'GET /api/copy/notes': () => new Promise((resolve) => (answer = resolve)) as never,
  });
  useSession.setState({ user: { uid: 7 } as never });
  authenticated = true;
  renderHook(() => useNotificationFeed());
  await vi.waitFor(() => expect(usePreferences.getState().loaded).toBe(true));
  act(() => listeners.get('copy')!({ type: 'copy', data: note }));
  await vi.waitFor(() => expect(useNotifications.getState().items).toHaveLength(1));
  answer({ data: { items: [note], total: 1 } });
  await new Promise((r) => setTimeout(r, 30));
  expect(useNotifications.getState().items.map((n) => n.id)).toEqual([`copy-copy-${now - 5_000}-7-3-ended`]);
  await vi.waitFor(async () => expect((await notificationDb.all()).map((n) => n.id)).toEqual([`copy-copy-${now - 5_000}-7-3-ended`]));
});

test('a follower away for days is told when they come back that their copying ended; a leader of every follower who started or stopped, once', async () => {
  const now = Date.now();
  const day = 86_400_000;
  let rows: unknown[] = [ended(now - 3 * day, 7, 3, 'by_leader')];
  mockApi({
    'GET /api/user/notification-settings': () => settings(true),
    'GET /api/copy/notes': () => ({ data: { items: rows, total: rows.length } }),
  });
  // This browser last heard of copy trading for UID 7 four days ago.
  window.localStorage.setItem('copyNotesSeen', JSON.stringify({ '7': now - 4 * day }));
  useSession.setState({ user: { uid: 7 } as never });
  authenticated = true;
  const { unmount } = renderHook(() => useNotificationFeed());
  await vi.waitFor(() => expect(shown()).toEqual(['Copying stopped | Copying trader #3 stopped: the trader removed you']));
  unmount();

  // The leader (UID 3) was away while follower 9 started and stopped copying them and follower
  // 8's copying ended: each is told, whatever ended it.
  await act(() => useNotifications.getState().clear('trade'));
  rows = [ended(now - 30_000, 9, 3), ended(now - 60_000, 8, 3), started(now - 90_000, 9, 3)];
  useSession.setState({ user: { uid: 3 } as never });
  renderHook(() => useNotificationFeed());
  const told = ['Copy trading | #9 started copying you', 'Copy trading | #8 stopped copying you', 'Copy trading | #9 stopped copying you'];
  await vi.waitFor(() => expect(shown()).toEqual(told));
  expect(JSON.parse(window.localStorage.getItem('copyNotesSeen') ?? '{}')).toEqual({ '7': now - 3 * day, '3': now - 30_000 });
  // The same note again, live (another tab's connection, a frame sent as the app came back): told once.
  await vi.waitFor(() => expect(usePreferences.getState().loaded).toBe(true));
  act(() => listeners.get('copy')!({ type: 'copy', data: ended(now - 60_000, 8, 3) }));
  await new Promise((r) => setTimeout(r, 20));
  expect(shown()).toEqual(told);
});
