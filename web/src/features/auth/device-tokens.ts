/**
 * Known devices. Every sign-in answers a device token: the server's proof that this browser
 * signed in to that account. Sent with a later password sign-in of the same account, it lets
 * that sign-in past the account's budget of failed sign-ins, which someone guessing from
 * elsewhere has spent. Kept per lower-cased username, newest first, for at most
 * {@link DEVICE_ACCOUNTS_MAX} accounts; the admins' apart from the users'. A sign-out keeps
 * them: they prove the device, not a session.
 */
import { StorageKey, readJson, writeKey } from '@/lib/storage';

export const DEVICE_ACCOUNTS_MAX = 10;

/** Whose sign-ins: a trader's (`/login`) or an admin's (`/admin/login`). */
export type DeviceKind = 'user' | 'admin';

interface Entry {
  username: string;
  token: string;
}

const KEY = { user: StorageKey.deviceTokens, admin: StorageKey.adminDeviceTokens } as const;

const nameKey = (username: string) => username.trim().toLowerCase();

/** An array of entries, newest first (not an object: a username of digits would sort first). */
function entries(kind: DeviceKind): Entry[] {
  const stored = readJson<unknown>(KEY[kind]);
  if (!Array.isArray(stored)) return [];
  return stored.filter((e): e is Entry => typeof e === 'object' && e !== null && typeof (e as Entry).username === 'string' && typeof (e as Entry).token === 'string');
}

/** The device token this browser holds for `username`, if any. */
export function deviceTokenFor(kind: DeviceKind, username: string): string | undefined {
  const name = nameKey(username);
  return name ? entries(kind).find((e) => e.username === name)?.token : undefined;
}

/** Keeps the token of a sign-in just made, first in the list. */
export function rememberDevice(kind: DeviceKind, username: string, token: unknown): void {
  const name = nameKey(username);
  if (!name || typeof token !== 'string' || token === '') return;
  const kept = [{ username: name, token }, ...entries(kind).filter((e) => e.username !== name)].slice(0, DEVICE_ACCOUNTS_MAX);
  writeKey(KEY[kind], JSON.stringify(kept));
}
