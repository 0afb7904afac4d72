/**
 * The signed-in admin: the token and info kept under the spec's keys `admin_token` and
 * `admin_info`, apart from the trader's session. A 401 or 403 on an admin call clears both;
 * the back-office then goes to /admin/login with the expired-session message (spec §6).
 */
import { create } from 'zustand';

import { StorageKey, readJson, readKey, writeKey } from '@/lib/storage';

/** The admin as the server shows it (`POST /api/admin/login`, `GET /api/admin/me`). */
export interface AdminInfo {
  id: number;
  username: string;
  /** super, operations, support or finance: shown as a label, never used to decide anything. */
  role: string;
  /** What the role may do: `users:read`, `orders:write`, ... The back-office looks only at these. */
  permissions: string[];
  /** The site-package provider's chat link (system config); empty when not set. Absent from
   * info stored before the server sent it, until `GET /api/admin/me` refreshes it. */
  providerLink?: string;
}

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
