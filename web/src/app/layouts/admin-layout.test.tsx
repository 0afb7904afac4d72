import { screen, waitFor, within } from '@testing-library/react';
import { beforeEach, describe, expect, it } from 'vitest';

import { useAdminSession } from '@/stores/admin-session';
import { type TestRole, adminOf } from '@/testing/admins';
import { mockApi } from '@/testing/api';
import { renderAt } from '@/testing/render';

import { AdminLayout } from './admin-layout';

function server(me?: ReturnType<typeof adminOf>) {
  return mockApi({
    'GET /api/admin/recharge-orders/pending-count': () => ({ data: { count: 0 } }),
    'GET /api/admin/withdraw-orders/pending-count': () => ({ data: { count: 0 } }),
    'GET /api/admin/me': () => (me ? { data: me } : { status: 500, code: 'INTERNAL', message: 'Server error' }),
    'POST /api/admin/logout': () => ({ data: {} }),
  });
}

function renderShell(route = '/admin/dashboard') {
  return renderAt(
    <AdminLayout>
      <p>page</p>
    </AdminLayout>,
    { path: '/admin/*', route },
  );
}

const sidebar = () => screen.getByRole('navigation', { name: 'Back-office menu' });
const sidebarLinks = () => within(sidebar()).getAllByRole('link').map((link) => link.textContent);

describe('the back-office shell', () => {
  beforeEach(() => useAdminSession.getState().signOut());

  // Each role sees exactly what its permissions allow, in the sidebar's order.
  const expected: Record<TestRole, string[]> = {
    super: ['Dashboard', 'Users', 'Teams', 'Game rules', 'Tournaments', 'Trades', 'Recharge orders', 'Withdraw orders', 'Products', 'System config', 'Notices', 'Audit log', 'Admins'],
    operations: ['Dashboard', 'Users', 'Teams', 'Game rules', 'Tournaments', 'Trades', 'Recharge orders', 'Withdraw orders', 'Products', 'System config', 'Notices', 'Audit log'],
    support: ['Dashboard', 'Users', 'Teams', 'Trades', 'Recharge orders', 'Withdraw orders', 'Notices'],
    finance: ['Dashboard', 'Users', 'Teams', 'Trades', 'Recharge orders', 'Withdraw orders', 'Audit log'],
  };
  for (const [role, items] of Object.entries(expected) as Array<[TestRole, string[]]>) {
    it(`shows ${role} exactly its menu items`, async () => {
      const admin = adminOf(role);
      server(admin);
      useAdminSession.getState().signIn('t', admin);
      renderShell();
      expect(sidebarLinks()).toEqual(items);
      expect(within(sidebar()).getByRole('button', { name: 'Logout' })).toBeInTheDocument();
      // The pending-order badges come with orders:read, which all four have.
      expect(await screen.findByRole('link', { name: 'Pending recharge orders: 0' })).toBeInTheDocument();
    });
  }

  it('looks at the permissions, never the role name', () => {
    server();
    useAdminSession.getState().signIn('t', adminOf('super', { permissions: ['users:read', 'notices:read'] }));
    renderShell();
    expect(sidebarLinks()).toEqual(['Users', 'Notices']);
  });

  it('reads the admin again on mount: a new role and provider link show, admin_info follows', async () => {
    const api = server(adminOf('support', { username: 'sam', providerLink: 'https://provider.example.com/chat' }));
    useAdminSession.getState().signIn('t', adminOf('finance', { username: 'sam' }));
    renderShell();
    expect(sidebarLinks()).toContain('Audit log');
    const provider = await screen.findByRole('link', { name: 'Contact the provider (opens in a new tab)' });
    expect(provider).toHaveAttribute('href', 'https://provider.example.com/chat');
    expect(provider).toHaveAttribute('target', '_blank');
    expect(provider).toHaveAttribute('rel', 'noopener noreferrer');
    expect(sidebarLinks()).not.toContain('Audit log');
    expect(sidebarLinks()).toContain('Notices');
    expect(api.count('GET /api/admin/me')).toBe(1);
    expect(JSON.parse(window.localStorage.getItem('admin_info') ?? '{}')).toMatchObject({ role: 'support', providerLink: 'https://provider.example.com/chat' });
  });

  it('keeps the stored admin when the refresh fails, and never links a non-web address', async () => {
    const api = server();
    useAdminSession.getState().signIn('t', adminOf('finance', { providerLink: 'javascript:alert(1)' }));
    renderShell();
    await waitFor(() => expect(api.count('GET /api/admin/me')).toBe(1));
    expect(useAdminSession.getState().admin?.role).toBe('finance');
    expect(screen.queryByRole('link', { name: /Contact the provider/ })).toBeNull();
  });

  it('has no provider link when none is set', () => {
    server();
    useAdminSession.getState().signIn('t', adminOf('super'));
    renderShell();
    expect(screen.queryByRole('link', { name: /Contact the provider/ })).toBeNull();
  });

  it('the admin-name menu offers profile, change password and logout', async () => {
    const api = server();
    useAdminSession.getState().signIn('t', adminOf('finance', { username: 'fiona' }));
    const { user, router } = renderShell();
    await user.click(screen.getByRole('button', { name: 'Admin menu: fiona' }));
    const menu = screen.getByRole('menu');
    expect(within(menu).getByText('Finance')).toBeInTheDocument();
    expect(within(menu).getAllByRole('menuitem').map((item) => item.textContent)).toEqual(['Profile', 'Change password', 'Logout']);
    await user.click(within(menu).getByRole('menuitem', { name: 'Profile' }));
    expect(router.state.location.pathname).toBe('/admin/account');
    expect(screen.queryByRole('menu')).toBeNull();

    await user.click(screen.getByRole('button', { name: 'Admin menu: fiona' }));
    await user.click(screen.getByRole('menuitem', { name: 'Change password' }));
    expect(router.state.location).toMatchObject({ pathname: '/admin/account', hash: '#password' });

    await user.click(screen.getByRole('button', { name: 'Admin menu: fiona' }));
    await user.click(screen.getByRole('menuitem', { name: 'Logout' }));
    await waitFor(() => expect(useAdminSession.getState().token).toBeNull());
    expect(api.count('POST /api/admin/logout')).toBe(1);
  });
});
