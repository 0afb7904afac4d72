import { IDBFactory } from 'fake-indexeddb';
import { beforeEach } from 'vitest';

import { type StoredNotification, notificationDb } from '../db';
import { NOTIFICATIONS_MAX, READ_KEEP_MS, overflow, soundEnabled, unreadCount, useNotifications } from './notifications';

const NOW = Date.UTC(2026, 10, 22);

function note(n: number, patch: Partial<StoredNotification> = {}): StoredNotification {
  return { id: `n${n}`, type: 'trade', priority: 'low', title: `#${n}`, message: '', time: NOW - (1000 - n) * 1000, read: false, ...patch };
}

beforeEach(() => {
  // A fresh in-memory IndexedDB and store for every test.
  globalThis.indexedDB = new IDBFactory();
  notificationDb.reset();
  useNotifications.setState({ items: [], loaded: false, open: false, tab: 'trade', sound: true });
});

/** A reload: the store forgets, then reads the database again. */
async function reload(now = NOW) {
  useNotifications.setState({ items: [], loaded: false });
  await useNotifications.getState().load(now);
  return useNotifications.getState().items;
}

test('past 50, the oldest read one is dropped first, else the oldest', async () => {
  const store = useNotifications.getState();
  for (let n = 0; n < NOTIFICATIONS_MAX; n += 1) await store.add(note(n, { read: n === 10 || n === 20 }));
  await store.add(note(100));
  let ids = useNotifications.getState().items.map((i) => i.id);
  expect(ids).toHaveLength(NOTIFICATIONS_MAX);
  expect(ids).not.toContain('n10'); // the oldest read one
  expect(ids).toContain('n0'); // older, but unread

  await store.add(note(101));
  ids = useNotifications.getState().items.map((i) => i.id);
  expect(ids).not.toContain('n20');
  expect(ids).toContain('n0');

  await store.add(note(102)); // no read one left: the oldest goes
  ids = useNotifications.getState().items.map((i) => i.id);
  expect(ids).not.toContain('n0');
  expect(ids[0]).toBe('n102'); // newest first
  expect((await reload()).map((i) => i.id)).toEqual(ids); // and the database agrees
});

test('the cap rule on its own', () => {
  const items = [note(1, { read: true }), note(2), note(3, { read: true }), note(4)];
  expect(overflow(items, 3)).toEqual(['n1']);
  expect(overflow(items, 2)).toEqual(['n1', 'n3']);
  expect(overflow([note(1), note(2)], 1)).toEqual(['n1']);
});

test('read notifications older than 7 days are deleted at start; unread ones stay', async () => {
  const store = useNotifications.getState();
  await store.add(note(1, { read: true, time: NOW - READ_KEEP_MS - 1 }));
  await store.add(note(2, { read: false, time: NOW - READ_KEEP_MS - 1 }));
  await store.add(note(3, { read: true, time: NOW - READ_KEEP_MS + 60_000 }));
  expect((await reload()).map((i) => i.id).sort()).toEqual(['n2', 'n3']);
  expect((await notificationDb.all()).map((i) => i.id).sort()).toEqual(['n2', 'n3']);
});

test('read by one, all of a tab at once; removed one by one or cleared; all of it kept across a reload', async () => {
  const store = useNotifications.getState();
  await store.add(note(1));
  await store.add(note(2));
  await store.add(note(3, { type: 'system' }));
  expect(unreadCount(useNotifications.getState().items)).toBe(3);

  await store.markRead('n1');
  expect(unreadCount(useNotifications.getState().items, 'trade')).toBe(1);
  await store.markAllRead('trade');
  expect(unreadCount(useNotifications.getState().items, 'trade')).toBe(0);
  expect(unreadCount(useNotifications.getState().items, 'system')).toBe(1);

  await store.remove('n2');
  expect((await reload()).map((i) => [i.id, i.read])).toEqual([
    ['n3', false],
    ['n1', true],
  ]);
  await useNotifications.getState().clear('system');
  expect((await reload()).map((i) => i.id)).toEqual(['n1']);
});

test('sound is on unless stored as disabled', () => {
  expect(soundEnabled()).toBe(true);
  useNotifications.getState().toggleSound();
  expect(window.localStorage.getItem('notificationSound')).toBe('disabled');
  expect(soundEnabled()).toBe(false);
  useNotifications.getState().toggleSound();
  expect(soundEnabled()).toBe(true);
});
