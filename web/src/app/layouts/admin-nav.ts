/**
 * The back-office's sidebar (spec §2, decisions §9), each item with the permission it needs:
 * an admin sees only what the role allows (the server refuses the rest as well).
 */
import { type AdminInfo, adminCan } from '@/stores/admin-session';

export interface AdminNavItem {
  key: string;
  to: string;
  label: string;
  permission: string;
}

export const ADMIN_NAV: readonly AdminNavItem[] = [
  { key: 'dashboard', to: '/admin/dashboard', label: 'admin.nav.dashboard', permission: 'dashboard:read' },
  { key: 'users', to: '/admin/users', label: 'admin.nav.users', permission: 'users:read' },
  { key: 'teams', to: '/admin/teams', label: 'admin.nav.teams', permission: 'teams:read' },
  { key: 'rules', to: '/admin/rules', label: 'admin.nav.rules', permission: 'rules:read' },
  { key: 'tournaments', to: '/admin/tournaments', label: 'admin.nav.tournaments', permission: 'rules:read' },
  { key: 'trades', to: '/admin/trades', label: 'admin.nav.trades', permission: 'trades:read' },
  { key: 'recharge', to: '/admin/recharge-orders', label: 'admin.nav.recharge', permission: 'orders:read' },
  { key: 'withdraw', to: '/admin/withdraw-orders', label: 'admin.nav.withdraw', permission: 'orders:read' },
  { key: 'products', to: '/admin/products', label: 'admin.nav.products', permission: 'products:read' },
  { key: 'config', to: '/admin/config', label: 'admin.nav.config', permission: 'config:read' },
  { key: 'notices', to: '/admin/notices', label: 'admin.nav.notices', permission: 'notices:read' },
  { key: 'audit', to: '/admin/audit', label: 'admin.nav.audit', permission: 'audit:read' },
  { key: 'admins', to: '/admin/admins', label: 'admin.nav.admins', permission: 'admins:read' },
];

/** The sidebar items `admin` may open. */
export function adminNavItems(admin: AdminInfo | null): AdminNavItem[] {
  return ADMIN_NAV.filter((item) => adminCan(admin, item.permission));
}

/** Which pending-order badges `admin` sees (both need `orders:read`). */
export function badgeKinds(admin: AdminInfo | null): Array<'recharge' | 'withdraw'> {
  return adminCan(admin, 'orders:read') ? ['recharge', 'withdraw'] : [];
}

/**
 * The provider's chat link (spec §2), when one is set and is a web address: anything else
 * (a `javascript:` URL typed into the config) is never made a link.
 */
export function providerLink(admin: AdminInfo | null): string | null {
  const link = admin?.providerLink?.trim() ?? '';
  if (!/^https?:\/\//i.test(link)) return null;
  try {
    return new URL(link).href;
  } catch {
    return null;
  }
}
