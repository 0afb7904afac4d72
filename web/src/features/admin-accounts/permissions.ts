/**
 * Roles and permissions as the back-office reads them. What an admin may see or do is decided
 * by the `area:read` / `area:write` strings the server sends, never by the role's name; the
 * role names are only offered when creating an admin, each with the catalogue's summary.
 */
import type { Schemas } from '@/types/api';

/** A role an admin can be given (`POST /api/admin/admins`). */
export type Role = Schemas['CreateAdminBody']['role'];

/** The roles, in the order offered. */
export const ROLES = ['super', 'operations', 'support', 'finance'] as const satisfies readonly Role[];

/** The areas of the back-office, in its order (the server's `Area::ALL`). */
export const AREAS = ['dashboard', 'users', 'teams', 'rules', 'trades', 'orders', 'money', 'products', 'config', 'notices', 'audit', 'admins', 'house'] as const;

export interface AreaAccess {
  area: string;
  read: boolean;
  write: boolean;
}

/**
 * The permissions grouped by area, in the back-office's order (areas the catalogue does not
 * know yet come last, as the server named them); malformed entries are left out.
 */
export function groupPermissions(permissions: readonly string[]): AreaAccess[] {
  const byArea = new Map<string, AreaAccess>();
  for (const permission of permissions) {
    const match = /^([a-z_]+):(read|write)$/.exec(permission);
    if (!match) continue;
    const [, area, access] = match as unknown as [string, string, 'read' | 'write'];
    const entry = byArea.get(area) ?? { area, read: false, write: false };
    entry[access] = true;
    byArea.set(area, entry);
  }
  const known: readonly string[] = AREAS;
  const rank = (area: string) => (known.includes(area) ? known.indexOf(area) : known.length);
  return [...byArea.values()].sort((a, b) => rank(a.area) - rank(b.area) || a.area.localeCompare(b.area));
}

/** The catalogue key of an area's access: view, change, or both. */
export function accessKey({ read, write }: AreaAccess): string {
  if (read && write) return 'admin.account.access.readWrite';
  return write ? 'admin.account.access.write' : 'admin.account.access.read';
}
