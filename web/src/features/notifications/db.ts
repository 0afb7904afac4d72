/**
 * Notifications kept in the browser's IndexedDB (spec §9), through idb (a small, well-kept
 * wrapper). One object store keyed by id; the whole list is small (at most 50).
 */
import { type DBSchema, type IDBPDatabase, openDB } from 'idb';

export interface StoredNotification {
  id: string;
  type: 'trade' | 'system';
  priority: 'high' | 'medium' | 'low';
  /** A catalogue key, rendered in the current language, or a literal text (system notices). */
  titleKey?: string;
  title?: string;
  messageKey?: string;
  message?: string;
  params?: Record<string, string | number>;
  /** The language a literal title and message are written in (system notices). */
  lang?: string;
  time: number;
  read: boolean;
  /** `symbol`: a trade notification opens its market; `path`: one that opens a page of the app (copy trading). */
  data?: { symbol?: string; price?: string; amount?: string; profit?: string; path?: string };
}

interface Schema extends DBSchema {
  items: { key: string; value: StoredNotification };
}

export const DB_NAME = 'trading-notifications';
const DB_VERSION = 1;

let db: Promise<IDBPDatabase<Schema>> | null = null;

function open(): Promise<IDBPDatabase<Schema>> {
  db ??= openDB<Schema>(DB_NAME, DB_VERSION, {
    upgrade(database) {
      database.createObjectStore('items', { keyPath: 'id' });
    },
  });
  return db;
}

export const notificationDb = {
  async all(): Promise<StoredNotification[]> {
    return (await open()).getAll('items');
  },
  async put(item: StoredNotification): Promise<void> {
    await (await open()).put('items', item);
  },
  async putMany(items: StoredNotification[]): Promise<void> {
    const tx = (await open()).transaction('items', 'readwrite');
    await Promise.all([...items.map((i) => tx.store.put(i)), tx.done]);
  },
  async remove(ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    const tx = (await open()).transaction('items', 'readwrite');
    await Promise.all([...ids.map((id) => tx.store.delete(id)), tx.done]);
  },
  /** Tests: forget the connection so a fresh fake database can be opened. */
  reset(): void {
    db = null;
  },
};
