/**
 * The back-office under `/admin` (spec §2): one lazy chunk, never loaded by the trader's
 * pages. `/admin/login` is for admin guests (a signed-in admin goes to /admin/dashboard);
 * everything else needs the admin token (else /admin/login), and a page the role does not
 * allow is not found. When the admin signs out, or the server ends the session (401 or 403:
 * the admin data is gone), the back-office goes to the login; an ended session says that it
 * expired.
 *
 * Its pages are matched here with the router's `matchRoutes` rather than by `<Routes>`: the
 * router's code is shared with every trader's page, and `<Routes>` would add to it (the
 * login route's budget, BENCHMARKS.md).
 */
import { type ComponentType, Suspense, lazy, useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { matchRoutes, useLocation, useNavigate } from 'react-router';

import { Spinner } from '@/components/states';
import { AdminLoginPage } from '@/features/auth/components/admin-login-page';
import { useAdminSession } from '@/stores/admin-session';
import { toast } from '@/stores/toast';

import { AdminLayout } from '../layouts/admin-layout';
import { AdminNotFound, AdminOnly } from '../layouts/admin-only';
import '@/styles/admin.css';
import '@/styles/admin-accounts.css';

interface AdminPage {
  path: string;
  /** What the admin's permissions must include; null: every admin (their own account). */
  permission: string | null;
  Page: ComponentType;
}

// Each page is its own chunk, fetched when opened: the shell stays small, and the dashboard's
// chart library loads only for the dashboard.
const AdminDashboard = lazy(() => import('@/features/admin-dashboard').then((m) => ({ default: m.AdminDashboard })));
const UsersPage = lazy(() => import('@/features/admin-users').then((m) => ({ default: m.UsersPage })));
const TeamsPage = lazy(() => import('@/features/admin-trades').then((m) => ({ default: m.TeamsPage })));
const TournamentsPage = lazy(() => import('@/features/admin-tournaments').then((m) => ({ default: m.TournamentsPage })));
const TradesPage = lazy(() => import('@/features/admin-trades').then((m) => ({ default: m.TradesPage })));
const RulesPage = lazy(() => import('@/features/admin-rules').then((m) => ({ default: m.RulesPage })));
const OrdersPage = lazy(() => import('@/features/admin-orders/components/orders-page').then((m) => ({ default: m.OrdersPage })));
const ProductsPage = lazy(() => import('@/features/admin-products').then((m) => ({ default: m.ProductsPage })));
const ConfigPage = lazy(() => import('@/features/admin-config').then((m) => ({ default: m.ConfigPage })));
const NoticesPage = lazy(() => import('@/features/admin-notices').then((m) => ({ default: m.NoticesPage })));
const AuditPage = lazy(() => import('@/features/admin-audit').then((m) => ({ default: m.AuditPage })));
const AccountPage = lazy(() => import('@/features/admin-accounts').then((m) => ({ default: m.AccountPage })));
const AdminsPage = lazy(() => import('@/features/admin-accounts').then((m) => ({ default: m.AdminsPage })));
const RechargeOrders = () => <OrdersPage key="recharge" kind="recharge" />;
const WithdrawOrders = () => <OrdersPage key="withdraw" kind="withdraw" />;

const PAGES: AdminPage[] = [
  { path: '/admin/dashboard', permission: 'dashboard:read', Page: AdminDashboard },
  { path: '/admin/users', permission: 'users:read', Page: UsersPage },
  { path: '/admin/teams', permission: 'teams:read', Page: TeamsPage },
  { path: '/admin/rules', permission: 'rules:read', Page: RulesPage },
  { path: '/admin/tournaments', permission: 'rules:read', Page: TournamentsPage },
  { path: '/admin/trades', permission: 'trades:read', Page: TradesPage },
  { path: '/admin/recharge-orders', permission: 'orders:read', Page: RechargeOrders },
  { path: '/admin/withdraw-orders', permission: 'orders:read', Page: WithdrawOrders },
  { path: '/admin/products', permission: 'products:read', Page: ProductsPage },
  { path: '/admin/config', permission: 'config:read', Page: ConfigPage },
  { path: '/admin/notices', permission: 'notices:read', Page: NoticesPage },
  { path: '/admin/audit', permission: 'audit:read', Page: AuditPage },
  { path: '/admin/admins', permission: 'admins:read', Page: AdminsPage },
  { path: '/admin/account', permission: null, Page: AccountPage },
];

const LOGIN = '/admin/login';
const HOME = '/admin/dashboard';

/** Where the admin must go instead of `pathname`, if anywhere. */
function redirectFor(pathname: string, signedIn: boolean): string | null {
  const path = pathname.replace(/\/+$/, '');
  if (!signedIn) return path === LOGIN ? null : LOGIN;
  return path === LOGIN || path === '/admin' ? HOME : null;
}

export function Component() {
  const { t } = useTranslation();
  const location = useLocation();
  const navigate = useNavigate();
  const expired = useAdminSession((s) => s.expired);
  const signedIn = useAdminSession((s) => s.token !== null);
  const target = redirectFor(location.pathname, signedIn);

  useEffect(() => {
    if (!expired) return;
    toast.error(t('auth.errors.sessionExpired'));
    useAdminSession.getState().acknowledgeExpired();
  }, [expired, t]);

  useEffect(() => {
    if (target) navigate(target, { replace: true });
  }, [target, navigate]);

  if (target) return null;
  if (!signedIn) return <AdminLoginPage />;
  const page = matchRoutes(PAGES, location)?.[0]?.route;
  return (
    <AdminLayout>
      {page ? (
        <AdminOnly permission={page.permission}>
          <Suspense fallback={<Spinner />}>
            <page.Page />
          </Suspense>
        </AdminOnly>
      ) : (
        <AdminNotFound />
      )}
    </AdminLayout>
  );
}
