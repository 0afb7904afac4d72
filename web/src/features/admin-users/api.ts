/**
 * Users in the back-office: search (a UID exactly, or a part of a username or e-mail in any
 * case, newest first), one user's figures, live sessions and contracts, freeze, adjust.
 */
import { adminApi } from '@/lib/admin-api';
import type { Page } from '@/lib/api-client';
import type { ContractRow, Schemas } from '@/types/api';

/** A user in the list: the user, their real wallet's figures, inviter and open contracts. */
export type AdminUser = Schemas['AdminUser'];

/** A session the user is signed in with now (device, address, when). */
export type AdminUserSession = Schemas['AdminSession'];

/** One user as the dialog shows them: the list's fields and the live sessions. */
export type AdminUserDetail = Schemas['AdminUserDetail'];

export const USERS_PAGE_SIZE = 20;
export const USER_CONTRACTS_SHOWN = 10;

export function fetchUsers(q: string, page: number, signal?: AbortSignal): Promise<Page<AdminUser>> {
  return adminApi.get<Page<AdminUser>>('/admin/users', { query: { q, page, pageSize: USERS_PAGE_SIZE }, signal });
}

export function fetchUser(uid: number, signal?: AbortSignal): Promise<AdminUserDetail> {
  return adminApi.get<AdminUserDetail>(`/admin/users/${uid}`, { signal });
}

export function fetchUserContracts(uid: number, signal?: AbortSignal): Promise<Page<ContractRow>> {
  return adminApi.get<Page<ContractRow>>('/admin/trades', { query: { user: uid, pageSize: USER_CONTRACTS_SHOWN }, signal });
}

export function setFrozen(uid: number, frozen: boolean, reason: string): Promise<unknown> {
  return adminApi.post(`/admin/users/${uid}/freeze`, { frozen, reason });
}

export function adjustBalance(uid: number, amount: string, reason: string): Promise<unknown> {
  return adminApi.post(`/admin/users/${uid}/adjust`, { amount, reason });
}

/** A signed amount with at most 2 decimals, not zero (the server's own rule). */
export const ADJUST_AMOUNT = /^-?\d{1,10}(\.\d{1,2})?$/;

export function checkAdjustment(amount: string, reason: string): { amount?: string; reason?: string } {
  const errors: { amount?: string; reason?: string } = {};
  const text = amount.trim();
  if (!ADJUST_AMOUNT.test(text) || !/[1-9]/.test(text)) errors.amount = 'admin.users.amountInvalid';
  if (!reason.trim()) errors.reason = 'admin.users.reasonRequired';
  return errors;
}
