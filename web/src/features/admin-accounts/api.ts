/**
 * Back-office accounts: the list of admins, creating one, disabling or enabling one, and each
 * admin's own password and two-factor sign-in. The server checks every permission again.
 */
import { adminApi } from '@/lib/admin-api';
import type { Schemas } from '@/types/api';

/**
 * An admin in the list (`GET /api/admin/admins`), in creation order: `disabled` cannot sign in
 * or act; `sessions` live now; `lastSignIn` the newest live session's start (ms), null when none
 * is live; `passwordChangedAt` (ms) 0 if never since the admin was created.
 */
export type AdminRow = Schemas['AdminRow'];

export type NewAdmin = Schemas['CreateAdminBody'];

export type OwnPasswordChange = Schemas['ChangePasswordBody'];

export function fetchAdmins(signal?: AbortSignal): Promise<AdminRow[]> {
  return adminApi.get<AdminRow[]>('/admin/admins', { signal });
}

export function createAdmin(body: NewAdmin): Promise<unknown> {
  return adminApi.post('/admin/admins', body);
}

/** Disabling ends that admin's sessions at once; nobody may disable themselves (ADMIN_KEPT). */
export function setAdminDisabled(id: number, disabled: boolean): Promise<unknown> {
  return adminApi.post(`/admin/admins/${id}/disabled`, { disabled });
}

/** One's own password; every other session of this admin ends, this one stays. */
export function changeOwnPassword(body: OwnPasswordChange): Promise<unknown> {
  return adminApi.post('/admin/password', body);
}

export const ownTwoFactor = {
  state: (signal?: AbortSignal) => adminApi.get<Schemas['TwoFactorState']>('/admin/2fa', { signal }),
  setup: () => adminApi.post<Schemas['TwoFactorSetup']>('/admin/2fa/setup'),
  enable: (secret: string, code: string) => adminApi.post<Schemas['TwoFactorState']>('/admin/2fa/enable', { secret, code }),
  /** Turning it off needs the admin's password as well as a current code. */
  disable: (code: string, password: string) => adminApi.post<Schemas['TwoFactorState']>('/admin/2fa/disable', { code, password }),
};
