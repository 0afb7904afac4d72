/**
 * The back-office shell (spec §2): the site name, the pending-recharge and pending-withdraw
 * badges (polled every 60 s, animated with a tone on a rise), the admin-name menu (profile,
 * change password, logout), and the sidebar of what the admin's permissions allow, the
 * provider's chat link when one is set, and logout. On a phone the sidebar opens from a menu
 * button. The admin is read again from the server when the shell mounts, so a changed role or
 * provider link shows without signing in again.
 */
import { useTranslation } from 'react-i18next';
import { type ReactNode, useCallback, useEffect, useId, useRef, useState } from 'react';
import { Link, useLocation, useNavigate } from 'react-router';

import { LanguageSwitcher } from '@/components/language-switcher';
import { type BadgeView, badgeText, usePendingBadges } from '@/features/admin-orders';
import { adminApi } from '@/lib/admin-api';
import { useDismiss } from '@/lib/use-dismiss';
import { useAdminSession } from '@/stores/admin-session';
import { DEFAULT_SITE_NAME, useSite } from '@/stores/site';
import type { AdminView } from '@/types/api';

import { adminNavItems, badgeKinds, providerLink } from './admin-nav';

/** Ends the admin session on the server (best effort) and here. */
async function signOutAdmin(): Promise<void> {
  try {
    await adminApi.post('/admin/logout');
  } catch {
    // Already ended, or the server is away: the token is forgotten here either way.
  }
  useAdminSession.getState().signOut();
}

/**
 * Reads the signed-in admin again (`GET /api/admin/me`) and keeps `admin_info` in step. A 401
 * or 403 ends the session through the admin client; any other failure keeps what is stored.
 */
function useAdminRefresh(): void {
  useEffect(() => {
    const controller = new AbortController();
    adminApi
      .get<AdminView>('/admin/me', { signal: controller.signal })
      .then((admin) => {
        if (useAdminSession.getState().token) useAdminSession.getState().setAdmin(admin);
      })
      .catch(() => {
        // Offline or refused: the stored info stands until the next mount.
      });
    return () => controller.abort();
  }, []);
}

function PendingBadge({ badge }: { badge: BadgeView }) {
  const { t } = useTranslation();
  if (badge.count === null) return null;
  const label = t(`admin.badges.${badge.kind}`, { count: badge.count });
  return (
    <Link to={`/admin/${badge.kind}-orders`} className={badge.animating ? 'admin-badge rising' : 'admin-badge'} aria-label={label} title={label}>
      <span className="admin-badge-glyph" aria-hidden="true">
        {badge.kind === 'recharge' ? '↓' : '↑'}
      </span>
      <span className="admin-badge-label" aria-hidden="true">
        {t(`admin.badges.${badge.kind}Short`)}
      </span>
      <span className={badge.count === 0 ? 'admin-badge-count num zero' : 'admin-badge-count num'} aria-hidden="true">
        {badgeText(badge.count)}
      </span>
    </Link>
  );
}

function AdminMenu() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const admin = useAdminSession((s) => s.admin);
  const [open, setOpen] = useState(false);
  const menuId = useId();
  const root = useRef<HTMLDivElement>(null);
  useDismiss(open, root, useCallback(() => setOpen(false), []));
  const go = (to: string) => {
    setOpen(false);
    navigate(to);
  };
  return (
    <div className="avatar-menu" ref={root}>
      <button type="button" className="admin-name" aria-haspopup="menu" aria-expanded={open} aria-controls={menuId} aria-label={t('admin.menu.open', { name: admin?.username ?? '' })} onClick={() => setOpen((v) => !v)}>
        {admin?.username}
      </button>
      {open && (
        <div id={menuId} role="menu" className="menu">
          <div className="menu-user">
            <strong>{admin?.username}</strong>
            {admin?.role && <span className="muted">{t(`admin.roles.${admin.role}`, { defaultValue: admin.role })}</span>}
          </div>
          <button type="button" role="menuitem" className="menu-item" onClick={() => go('/admin/account')}>
            {t('admin.menu.profile')}
          </button>
          <button type="button" role="menuitem" className="menu-item" onClick={() => go('/admin/account#password')}>
            {t('admin.menu.password')}
          </button>
          <button
            type="button"
            role="menuitem"
            className="menu-item"
            onClick={() => {
              setOpen(false);
              void signOutAdmin();
            }}
          >
            {t('admin.nav.logout')}
          </button>
        </div>
      )}
    </div>
  );
}

export function AdminLayout({ children }: { children: ReactNode }) {
  const { t } = useTranslation();
  const admin = useAdminSession((s) => s.admin);
  const siteName = useSite((s) => s.info?.siteName) || DEFAULT_SITE_NAME;
  const badges = usePendingBadges(badgeKinds(admin));
  const provider = providerLink(admin);
  useAdminRefresh();
  const [navOpen, setNavOpen] = useState(false);
  const { pathname } = useLocation();
  const [shownFor, setShownFor] = useState(pathname);
  if (shownFor !== pathname) {
    // A new page closes the phone's sidebar.
    setShownFor(pathname);
    setNavOpen(false);
  }
  return (
    <div className="admin">
      <a className="skip-link" href="#admin-main">
        {t('app.skipToContent')}
      </a>
      <header className="admin-header">
        <button type="button" className="icon-button admin-nav-toggle" aria-expanded={navOpen} aria-controls="admin-sidebar" aria-label={t('admin.nav.toggle')} onClick={() => setNavOpen((v) => !v)}>
          <span className="admin-burger" aria-hidden="true" />
        </button>
        <span className="header-brand">
          {siteName} <span className="admin-tag">{t('admin.title')}</span>
        </span>
        <div className="header-tools">
          {badges.map((badge) => (
            <PendingBadge key={badge.kind} badge={badge} />
          ))}
          <LanguageSwitcher compact />
          <AdminMenu />
        </div>
      </header>
      <nav id="admin-sidebar" className={navOpen ? 'admin-sidebar open' : 'admin-sidebar'} aria-label={t('admin.nav.label')}>
        {adminNavItems(admin).map((item) => {
          const current = pathname.startsWith(item.to);
          return (
            <Link key={item.key} to={item.to} className={current ? 'admin-nav-item active' : 'admin-nav-item'} aria-current={current ? 'page' : undefined}>
              {t(item.label)}
            </Link>
          );
        })}
        {provider && (
          <a href={provider} target="_blank" rel="noopener noreferrer" className="admin-nav-item" aria-label={`${t('admin.nav.provider')} ${t('admin.nav.newTab')}`}>
            {t('admin.nav.provider')}
            <span className="admin-nav-external-mark" aria-hidden="true">
              ↗
            </span>
          </a>
        )}
        <button type="button" className="admin-nav-item" onClick={() => void signOutAdmin()}>
          {t('admin.nav.logout')}
        </button>
      </nav>
      <main id="admin-main" className="admin-main" tabIndex={-1}>
        {children}
      </main>
    </div>
  );
}
