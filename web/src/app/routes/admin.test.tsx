import { screen, waitFor, within } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';

import { type AdminInfo, useAdminSession } from '@/stores/admin-session';
import { useSite } from '@/stores/site';
import { useToasts } from '@/stores/toast';
import { adminOf } from '@/testing/admins';
import { mockApi } from '@/testing/api';
import { siteInfo } from '@/testing/fixtures';
import { renderAt } from '@/testing/render';

// The chart library needs a real browser's canvas; here the chart records what it was given.
const shown: Array<{ points: Array<{ day: number; value: number }>; signed: boolean }> = [];
vi.mock('@/features/admin-dashboard/chart', () => ({
  DailyChart: class {
    show(points: Array<{ day: number; value: number }>, signed: boolean) {
      shown.push({ points: [...points], signed });
    }
    remove() {}
  },
}));
const { Component: AdminApp } = await import('./admin');

const SUPER: AdminInfo = {
  id: 1,
  username: 'root_admin',
  role: 'super',
  permissions: ['dashboard:read', 'orders:read', 'users:read', 'admins:write'],
};
const NO_ORDERS: AdminInfo = { id: 2, username: 'reader', role: 'support', permissions: ['users:read'] };

const DASHBOARD = {
  users: 12,
  openContracts: 3,
  houseBalance: '1000.00',
  houseReserved: '0',
  seedCapital: '1000',
  depositsApproved: '0',
  withdrawalsPaid: '0',
  pendingDeposits: 4,
  pendingWithdrawals: 1,
  online: 9,
  totals: { contracts: 0, volume: '0', settled: 0, usersNet: '0', logins: 0, registrations: 0 },
};
const day = (n: number, turnover: string) => ({
  day: n * 86_400_000,
  registrations: n,
  logins: 0,
  deposits: 0,
  depositAmount: '0',
  withdrawals: 0,
  withdrawalAmount: '0',
  contracts: 1,
  turnover,
  fees: '0',
  settled: 0,
  houseResult: '0',
});

function adminServer() {
  return mockApi({
    'POST /api/admin/login': (body) => {
      const { username, password } = body as { username: string; password: string };
      if (username === 'root_admin' && password === 'secret123') return { data: { token: 'admin-token', admin: SUPER } };
      return { status: 400, code: 'ADMIN_LOGIN_FAILED', message: 'Incorrect admin username or password' };
    },
    'GET /api/admin/dashboard': () => ({ data: DASHBOARD }),
    'GET /api/admin/dashboard/days': () => ({ data: [day(1, '10.50'), day(2, '4.25')] }),
    'GET /api/admin/recharge-orders/pending-count': () => ({ data: { count: 4 } }),
    'GET /api/admin/withdraw-orders/pending-count': () => ({ data: { count: 120 } }),
    'POST /api/admin/logout': () => ({ data: {} }),
  });
}

function renderAdmin(route: string) {
  return renderAt(<AdminApp />, { path: '/admin/*', route });
}

describe('the back-office', () => {
  beforeEach(() => {
    useAdminSession.getState().signOut();
  });

  it('sends a visitor without the admin token to the login', async () => {
    adminServer();
    const { router } = renderAdmin('/admin/dashboard');
    await waitFor(() => expect(router.state.location.pathname).toBe('/admin/login'));
    expect(await screen.findByRole('heading', { name: 'Administrator sign-in' })).toBeInTheDocument();
  });

  it('checks the login form by the rules of §5 before calling the server', async () => {
    const api = adminServer();
    const { user } = renderAdmin('/admin/login');
    await user.type(await screen.findByLabelText('Username'), 'ab');
    await user.type(screen.getByLabelText('Password'), '12345');
    await user.click(screen.getByRole('button', { name: 'Login' }));
    expect(await screen.findByText('Username must be 3-20 characters')).toBeInTheDocument();
    expect(screen.getByText('Password must be at least 6 characters')).toBeInTheDocument();
    expect(api.count('POST /api/admin/login')).toBe(0);
  });

  it('shows the server refusal, then signs in, keeps admin_token and admin_info and opens the dashboard', async () => {
    adminServer();
    const { user, router } = renderAdmin('/admin/login');
    await user.type(await screen.findByLabelText('Username'), 'root_admin');
    await user.type(screen.getByLabelText('Password'), 'wrong-one');
    await user.click(screen.getByRole('button', { name: 'Login' }));
    expect(await screen.findByText('Incorrect admin username or password')).toBeInTheDocument();

    await user.clear(screen.getByLabelText('Password'));
    await user.type(screen.getByLabelText('Password'), 'secret123');
    await user.click(screen.getByRole('button', { name: 'Login' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/admin/dashboard'));
    expect(window.localStorage.getItem('admin_token')).toBe('admin-token');
    expect(JSON.parse(window.localStorage.getItem('admin_info') ?? '{}')).toMatchObject({ username: 'root_admin', role: 'super' });
    expect(await screen.findByRole('heading', { name: 'Dashboard' })).toBeInTheDocument();
    expect((await screen.findByText('Online connections')).nextSibling).toHaveTextContent('9');
    // The badges: 4, and 120 shown as 99+.
    expect(await screen.findByRole('link', { name: 'Pending recharge orders: 4' })).toHaveTextContent('4');
    expect(screen.getByRole('link', { name: 'Pending withdraw orders: 120' })).toHaveTextContent('99+');
    // The last 30 days sum the days' figures as decimals.
    const last = screen.getByRole('region', { name: 'Last 2 days' });
    expect(last).toHaveTextContent('14.75 USDT (2)');
    // The chart shows turnover per day, then the figure the admin picks.
    expect(shown.at(-1)).toEqual({ points: [{ day: 86_400_000, value: 10.5 }, { day: 172_800_000, value: 4.25 }], signed: false });
    await user.selectOptions(screen.getByRole('combobox', { name: 'Figure' }), 'registrations');
    expect(shown.at(-1)?.points.map((p) => p.value)).toEqual([1, 2]);
  });

  it('sends a signed-in admin from the login (and /admin) to the dashboard', async () => {
    adminServer();
    useAdminSession.getState().signIn('admin-token', SUPER);
    const { router } = renderAdmin('/admin/login');
    await waitFor(() => expect(router.state.location.pathname).toBe('/admin/dashboard'));
  });

  it('shows only what the role allows: no badges and no dashboard without those permissions', async () => {
    const api = adminServer();
    useAdminSession.getState().signIn('admin-token', NO_ORDERS);
    renderAdmin('/admin/dashboard');
    expect(await screen.findByRole('heading', { name: 'Page not found' })).toBeInTheDocument();
    const menu = screen.getByRole('navigation', { name: 'Back-office menu' });
    expect(menu).not.toHaveTextContent('Dashboard');
    expect(screen.queryByRole('link', { name: /Pending/ })).toBeNull();
    expect(api.count('GET /api/admin/recharge-orders/pending-count')).toBe(0);
    expect(api.count('GET /api/admin/dashboard')).toBe(0);
  });

  it('on a 401 clears the admin data and returns to the login with the expired-session message', async () => {
    mockApi({
      'GET /api/admin/dashboard': () => ({ status: 401, code: 'SESSION_EXPIRED', message: 'Login expired, please log in again' }),
      'GET /api/admin/dashboard/days': () => ({ data: [] }),
    });
    useAdminSession.getState().signIn('admin-token', SUPER);
    const { router } = renderAdmin('/admin/dashboard');
    await waitFor(() => expect(router.state.location.pathname).toBe('/admin/login'));
    expect(window.localStorage.getItem('admin_token')).toBeNull();
    expect(window.localStorage.getItem('admin_info')).toBeNull();
    expect(useToasts.getState().toasts.map((t) => t.text)).toContain('Login expired, please log in again');
    expect(await screen.findByRole('heading', { name: 'Administrator sign-in' })).toBeInTheDocument();
  });

  it('opens /admin/account for every admin, and /admin/admins only with admins:read', async () => {
    mockApi({ 'GET /api/admin/2fa': () => ({ data: { enabled: false } }) });
    useAdminSession.getState().signIn('admin-token', adminOf('support', { username: 'sam' }));
    const { user, router } = renderAdmin('/admin/admins');
    expect(await screen.findByRole('heading', { name: 'Page not found' })).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Admin menu: sam' }));
    await user.click(screen.getByRole('menuitem', { name: 'Change password' }));
    expect(router.state.location).toMatchObject({ pathname: '/admin/account', hash: '#password' });
    expect(await screen.findByRole('heading', { name: 'My account' })).toBeInTheDocument();
    await waitFor(() => expect(screen.getByLabelText('Current password')).toHaveFocus());
    expect(screen.getByRole('region', { name: 'Profile' })).toHaveTextContent('Support');
  });

  it('opens the notices page with notices:read, and the admins page with admins:read', async () => {
    mockApi({
      'GET /api/admin/admins': () => ({ data: [] }),
      'GET /api/admin/notices': () => ({ data: { items: [], total: 0 } }),
    });
    useAdminSession.getState().signIn('admin-token', adminOf('super', { permissions: ['notices:read', 'admins:read'] }));
    const { router } = renderAdmin('/admin/admins');
    expect(await screen.findByRole('heading', { name: 'Admins' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Add an admin' })).toBeNull();
    await router.navigate('/admin/notices');
    expect(await screen.findByRole('heading', { name: 'Notices' })).toBeInTheDocument();
  });

  it('after "Config saved" the header and the sidebar show the new site name and provider link, without a reload', async () => {
    const admin = adminOf('super', { username: 'root', providerLink: 'https://old-provider.example/chat' });
    const basic = {
      siteName: 'Trading Pro',
      logo: '',
      siteDescription: '',
      emailLogin: true,
      walletLogin: true,
      customerServiceEnabled: false,
      customerServiceLink: '',
      customerServiceHours: '09:00-21:00',
      inviteCodeRequired: false,
      providerLink: 'https://old-provider.example/chat',
    };
    const finance = { withdrawFeeRate: '0.01', withdrawFeeFixed: '1', withdrawMin: '10', withdrawMax: '50000', depositMin: '10', depositMax: '100000', openContractsPerUserMax: 200, rewardRates: ['0.005', '0.003', '0.002'], demoBalance: '10000' };
    const api = mockApi({
      'GET /api/admin/me': () => ({ data: admin }),
      'GET /api/admin/recharge-orders/pending-count': () => ({ data: { count: 0 } }),
      'GET /api/admin/withdraw-orders/pending-count': () => ({ data: { count: 0 } }),
      'GET /api/admin/system/config': () => ({ data: { basic, finance } }),
      'GET /api/admin/system/deposit-accounts': () => ({ data: [] }),
      // The server answers the config as it saved it (trimmed).
      'PUT /api/admin/system/config': (body) => {
        const sent = body as { basic: typeof basic; finance: typeof finance };
        return { data: { ...sent, basic: { ...sent.basic, siteName: sent.basic.siteName.trim(), providerLink: sent.basic.providerLink.trim() } } };
      },
    });
    useSite.setState({ info: siteInfo({ siteName: 'Trading Pro' }) });
    useAdminSession.getState().signIn('admin-token', admin);
    const { user } = renderAdmin('/admin/config');
    const header = screen.getByRole('banner');
    expect(header).toHaveTextContent('Trading Pro');
    const provider = () => within(screen.getByRole('navigation', { name: 'Back-office menu' })).getByRole('link', { name: 'Contact the provider (opens in a new tab)' });
    expect(provider()).toHaveAttribute('href', 'https://old-provider.example/chat');
    await waitFor(() => expect(api.count('GET /api/admin/me')).toBe(1));

    const form = await screen.findByRole('form', { name: 'System config' });
    const name = within(form).getByLabelText('Site name');
    await user.clear(name);
    await user.type(name, 'Rise Fall Pro ');
    const link = within(form).getByLabelText('Provider chat link');
    await user.clear(link);
    await user.type(link, 'https://new-provider.example/help');
    await user.click(within(form).getByRole('button', { name: 'Save config' }));
    await waitFor(() => expect(useToasts.getState().toasts.map((t) => t.text)).toContain('Config saved'));
    expect(api.count('PUT /api/admin/system/config')).toBe(1);

    expect(header).toHaveTextContent('Rise Fall Pro');
    expect(header).not.toHaveTextContent('Trading Pro');
    expect(provider()).toHaveAttribute('href', 'https://new-provider.example/help');
    // Every other screen of this tab that reads the site's settings has them too.
    expect(useSite.getState().info).toMatchObject({ siteName: 'Rise Fall Pro', customerService: { enabled: false, hours: '09:00-21:00' } });
    expect(JSON.parse(window.localStorage.getItem('admin_info') ?? '{}')).toMatchObject({ providerLink: 'https://new-provider.example/help' });
    useSite.setState({ info: null });
  });

  it('logs out from the sidebar', async () => {
    const api = adminServer();
    useAdminSession.getState().signIn('admin-token', SUPER);
    const { user, router } = renderAdmin('/admin/dashboard');
    await user.click(await screen.findByRole('button', { name: 'Logout' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/admin/login'));
    expect(api.count('POST /api/admin/logout')).toBe(1);
    expect(window.localStorage.getItem('admin_token')).toBeNull();
  });
});
