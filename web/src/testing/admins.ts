/**
 * Admins as the server sends them, for tests: each of the four roles with the permissions the
 * server's one table gives it (engine `Role::can`; write implies read), so a test of what a
 * role sees is a test against the real table.
 */
import type { AdminInfo } from '@/stores/admin-session';

const AREAS = ['dashboard', 'users', 'teams', 'rules', 'trades', 'orders', 'money', 'products', 'config', 'notices', 'audit', 'admins', 'house'];

const TABLE: Record<string, { read: string[]; write: string[] }> = {
  super: { read: AREAS, write: AREAS },
  operations: {
    read: ['dashboard', 'users', 'teams', 'rules', 'trades', 'orders', 'products', 'config', 'notices', 'audit'],
    write: ['users', 'rules', 'products', 'notices'],
  },
  support: { read: ['dashboard', 'users', 'teams', 'trades', 'orders', 'notices'], write: ['users', 'notices'] },
  finance: { read: ['dashboard', 'users', 'teams', 'trades', 'orders', 'money', 'audit'], write: ['orders', 'money'] },
};

export type TestRole = 'super' | 'operations' | 'support' | 'finance';

/** `role`'s permissions, in the server's order (`area:read`, `area:write`, area by area). */
export function permissionsOf(role: TestRole): string[] {
  const { read, write } = TABLE[role]!;
  return AREAS.flatMap((area) => [
    ...(read.includes(area) || write.includes(area) ? [`${area}:read`] : []),
    ...(write.includes(area) ? [`${area}:write`] : []),
  ]);
}

export function adminOf(role: TestRole, patch: Partial<AdminInfo> = {}): AdminInfo {
  return { id: 1, username: `${role}_admin`, role, permissions: permissionsOf(role), providerLink: '', ...patch };
}
