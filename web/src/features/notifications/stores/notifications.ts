/**
 * The notification centre's rules (spec §2, §4, §9):
 * - at most 50 kept; past that the oldest read one goes first, else the oldest;
 * - read notifications older than 7 days are deleted at start;
 * - read by a click, one by one or all at once; removed one by one or all cleared;
 * - sound on unless `notificationSound` is stored as `disabled`.
 * Every change is written to IndexedDB, so the list survives a reload.
 */
import { create } from 'zustand';

import { StorageKey, readKey, writeKey } from '@/lib/storage';

import { type StoredNotification, notificationDb } from '../db';

export const NOTIFICATIONS_MAX = 50;
export const READ_KEEP_MS = 7 * 24 * 60 * 60 * 1000;

export type NotificationType = StoredNotification['type'];

interface NotificationsState {
  items: StoredNotification[];
  loaded: boolean;
  open: boolean;
  tab: NotificationType;
  sound: boolean;
  load(now?: number): Promise<void>;
  add(item: StoredNotification): Promise<void>;
  markRead(id: string): Promise<void>;
  markAllRead(type: NotificationType): Promise<void>;
  remove(id: string): Promise<void>;
  clear(type: NotificationType): Promise<void>;
  toggleSound(): void;
  setOpen(open: boolean): void;
  setTab(tab: NotificationType): void;
}

const newestFirst = (a: StoredNotification, b: StoredNotification) => b.time - a.time;

/** Applies the cap: which ids to drop so that at most `max` remain. */
export function overflow(items: StoredNotification[], max = NOTIFICATIONS_MAX): string[] {
  const drop: string[] = [];
  const sorted = [...items].sort(newestFirst);
  while (sorted.length > max) {
    const oldestRead = sorted.map((n) => n.read).lastIndexOf(true);
    const [gone] = sorted.splice(oldestRead >= 0 ? oldestRead : sorted.length - 1, 1);
    if (gone) drop.push(gone.id);
  }
  return drop;
}

export function soundEnabled(): boolean {
  return readKey(StorageKey.notificationSound) !== 'disabled';
}

export const useNotifications = create<NotificationsState>()((set, get) => ({
  items: [],
  loaded: false,
  open: false,
  tab: 'trade',
  sound: soundEnabled(),
  async load(now = Date.now()) {
    let items: StoredNotification[] = [];
    try {
      items = await notificationDb.all();
    } catch {
      // No IndexedDB (private mode): the list lives in memory for this page.
    }
    const expired = items.filter((n) => n.read && now - n.time > READ_KEEP_MS).map((n) => n.id);
    let kept = items.filter((n) => !expired.includes(n.id));
    const over = overflow(kept);
    kept = kept.filter((n) => !over.includes(n.id));
    await notificationDb.remove([...expired, ...over]).catch(() => undefined);
    // Anything that arrived while the database was being read is kept too.
    const arrived = get().items.filter((n) => !kept.some((k) => k.id === n.id));
    set({ items: [...kept, ...arrived].sort(newestFirst), loaded: true });
  },
  async add(item) {
    if (get().items.some((n) => n.id === item.id)) return;
    const all = [item, ...get().items].sort(newestFirst);
    const over = overflow(all);
    set({ items: all.filter((n) => !over.includes(n.id)) });
    await notificationDb.put(item).catch(() => undefined);
    await notificationDb.remove(over).catch(() => undefined);
  },
  async markRead(id) {
    const item = get().items.find((n) => n.id === id);
    if (!item || item.read) return;
    const updated = { ...item, read: true };
    set({ items: get().items.map((n) => (n.id === id ? updated : n)) });
    await notificationDb.put(updated).catch(() => undefined);
  },
  async markAllRead(type) {
    const changed = get()
      .items.filter((n) => n.type === type && !n.read)
      .map((n) => ({ ...n, read: true }));
    if (changed.length === 0) return;
    set({ items: get().items.map((n) => changed.find((c) => c.id === n.id) ?? n) });
    await notificationDb.putMany(changed).catch(() => undefined);
  },
  async remove(id) {
    set({ items: get().items.filter((n) => n.id !== id) });
    await notificationDb.remove([id]).catch(() => undefined);
  },
  async clear(type) {
    const gone = get().items.filter((n) => n.type === type).map((n) => n.id);
    set({ items: get().items.filter((n) => n.type !== type) });
    await notificationDb.remove(gone).catch(() => undefined);
  },
  toggleSound() {
    const sound = !get().sound;
    writeKey(StorageKey.notificationSound, sound ? 'enabled' : 'disabled');
    set({ sound });
  },
  setOpen(open) {
    set({ open });
  },
  setTab(tab) {
    set({ tab });
  },
}));

export function unreadCount(items: StoredNotification[], type?: NotificationType): number {
  return items.filter((n) => !n.read && (!type || n.type === type)).length;
}
