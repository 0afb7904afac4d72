/**
 * The signed-in admin: the token and info kept under the spec's keys `admin_token` and
 * `admin_info`, apart from the trader's session. A 401 or 403 on an admin call clears both;
 * the back-office then goes to /admin/login with the expired-session message (spec §6).
 */
import { create } from 'zustand';

import { StorageKey, readJson, readKey, writeKey } from '@/lib/storage';
import type { AdminView } from '@/types/api';

/**
 * The admin as the server shows them (`POST /api/admin/login`, `GET /api/admin/me`): `role`
 * (super, operations, support or finance) is shown as a label, never used to decide anything;
 * `permissions` (`users:read`, `orders:write`, ...) are all the back-office looks at.
 * `providerLink`, the site-package provider's chat link (system config, empty when not set), is
 * absent from info stored before the server sent it, until `GET /api/admin/me` refreshes it.
 */
export type AdminInfo = Omit<AdminView, 'providerLink'> & Partial<Pick<AdminView, 'providerLink'>>;

interface AdminSessionState {
  token: string | null;
  admin: AdminInfo | null;
  /** Set when the server ended the session, until the back-office has said so. */
  expired: boolean;
  signIn(token: string, admin: AdminInfo): void;
  setAdmin(admin: AdminInfo): void;
  signOut(): void;
  expire(): void;
  acknowledgeExpired(): void;
}

function storedAdmin(): AdminInfo | null {
  const admin = readJson<AdminInfo>(StorageKey.adminInfo);
  return admin && typeof admin.username === 'string' && Array.isArray(admin.permissions) ? admin : null;
}

function clear(): void {
  writeKey(StorageKey.adminToken, null);
  writeKey(StorageKey.adminInfo, null);
}

export const useAdminSession = create<AdminSessionState>()((set) => ({
  token: readKey(StorageKey.adminToken),
  admin: storedAdmin(),
  expired: false,
  signIn(token, admin) {
    writeKey(StorageKey.adminToken, token);
    writeKey(StorageKey.adminInfo, JSON.stringify(admin));
    set({ token, admin, expired: false });
  },
  setAdmin(admin) {
    writeKey(StorageKey.adminInfo, JSON.stringify(admin));
    set({ admin });
  },
  signOut() {
    clear();
    set({ token: null, admin: null, expired: false });
  },
  expire() {
    clear();
    set({ token: null, admin: null, expired: true });
  },
  acknowledgeExpired() {
    set({ expired: false });
  },
}));

/** May the signed-in admin do `permission` (e.g. `orders:write`)? */
export function adminCan(admin: AdminInfo | null, permission: string): boolean {
  return admin?.permissions.includes(permission) ?? false;
}
