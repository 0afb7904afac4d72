import { screen, waitFor, within } from '@testing-library/react';
import { beforeEach, describe, expect, it } from 'vitest';

import type { AdminRow } from '../api';
import { useAdminSession } from '@/stores/admin-session';
import { useToasts } from '@/stores/toast';
import { adminOf, permissionsOf } from '@/testing/admins';
import { mockApi } from '@/testing/api';
import { renderAt } from '@/testing/render';

import { AdminsPage } from './admins-page';

const ROOT = adminOf('super', { id: 1, username: 'root' });
const toasts = () => useToasts.getState().toasts.map((t) => t.text);

const row = (id: number, username: string, role: 'super' | 'finance' | 'support', patch: Partial<AdminRow> = {}): AdminRow => ({
  id,
  username,
  role,
  permissions: permissionsOf(role),
  disabled: false,
  twoFactor: false,
  sessions: 0,
  lastSignIn: null,
  passwordChangedAt: 0,
  ...patch,
});

function server(admins: AdminRow[]) {
  return mockApi({
    'GET /api/admin/admins': () => ({ data: admins }),
    'POST /api/admin/admins': (body) => {
      const { username, role } = body as { username: string; role: 'finance' };
      if (admins.some((a) => a.username.toLowerCase() === username.toLowerCase())) return { status: 400, code: 'USERNAME_EXISTS', message: 'Username already exists' };
      admins.push(row(admins.length + 1, username, role));
      return { data: {} };
    },
    'POST /api/admin/admins/2/disabled': (body) => {
      const disabled = (body as { disabled: boolean }).disabled;
      admins[1] = { ...admins[1]!, disabled, sessions: disabled ? 0 : admins[1]!.sessions };
      return { data: {} };
    },
  });
}

const list = () => screen.findByRole('list', { name: 'Back-office accounts' });

describe('back-office admins', () => {
  beforeEach(() => {
    useAdminSession.getState().signIn('t', ROOT);
    useToasts.setState({ toasts: [] });
  });

  it('lists every admin with role, two-factor, sessions, last sign-in, password age and state; none for oneself', async () => {
    server([
      row(1, 'root', 'super', { twoFactor: true, sessions: 1, lastSignIn: 1_700_000_000_000, passwordChangedAt: 1_690_000_000_000 }),
      row(2, 'fiona', 'finance', { sessions: 2, lastSignIn: 1_700_000_100_000 }),
      row(3, 'sam', 'support', { disabled: true }),
    ]);
    renderAt(<AdminsPage />);
    const items = within(await list()).getAllByRole('listitem');
    expect(items).toHaveLength(3);
    const [root, fiona, sam] = items as [HTMLElement, HTMLElement, HTMLElement];
    expect(root).toHaveTextContent('You');
    expect(root).toHaveTextContent('Super admin');
    expect(root).toHaveTextContent('Two-factor sign-inOn');
    expect(root).not.toHaveTextContent('Never');
    expect(within(root).queryByRole('button')).toBeNull();
    expect(fiona).toHaveTextContent('Finance');
    expect(fiona).toHaveTextContent('Live sessions2');
    expect(fiona).toHaveTextContent('Password changedNever');
    expect(fiona).toHaveTextContent('Enabled');
    expect(within(fiona).getByRole('button', { name: 'Disable fiona' })).toBeInTheDocument();
    expect(sam).toHaveTextContent('Last sign-inNo live session');
    expect(sam).toHaveTextContent('Disabled');
    expect(within(sam).getByRole('button', { name: 'Enable sam' })).toBeInTheDocument();
  });

  it('shows a reader the list without actions', async () => {
    useAdminSession.getState().signIn('t', adminOf('finance', { id: 9, permissions: ['admins:read'] }));
    server([row(1, 'root', 'super'), row(2, 'fiona', 'finance')]);
    renderAt(<AdminsPage />);
    await list();
    expect(screen.queryByRole('button')).toBeNull();
  });

  it('has loading, empty and error states', async () => {
    let answer: 'fail' | 'empty' = 'fail';
    mockApi({ 'GET /api/admin/admins': () => (answer === 'fail' ? { status: 500, code: 'INTERNAL', message: 'Server error, please try again later' } : { data: [] }) });
    const { user } = renderAt(<AdminsPage />);
    expect(screen.getByRole('status', { name: 'Loading…' })).toBeInTheDocument();
    expect(await screen.findByRole('alert')).toHaveTextContent('Server error, please try again later');
    answer = 'empty';
    await user.click(screen.getByRole('button', { name: 'Retry' }));
    expect(await screen.findByText('No admins yet')).toBeInTheDocument();
  });

  it('creates an admin only when username, password and role pass, each role described', async () => {
    const api = server([row(1, 'root', 'super'), row(2, 'fiona', 'finance')]);
    const { user } = renderAt(<AdminsPage />);
    await list();
    await user.click(screen.getByRole('button', { name: 'Add an admin' }));
    const dialog = screen.getByRole('dialog', { name: 'New admin' });
    const username = within(dialog).getByLabelText('Username');
    const password = within(dialog).getByLabelText('First password');
    const create = () => user.click(within(dialog).getByRole('button', { name: 'Create admin' }));

    // The four roles, each with what it may do; none chosen for the admin.
    const roles = within(dialog).getAllByRole('radio');
    expect(roles.map((r) => r.getAttribute('value'))).toEqual(['super', 'operations', 'support', 'finance']);
    expect(roles.every((r) => !(r as HTMLInputElement).checked)).toBe(true);
    expect(within(dialog).getByRole('radio', { name: 'Support' })).toHaveAccessibleDescription(/views users, teams, trades and orders; freezes users and sends notices/);
    expect(within(dialog).getByRole('radio', { name: 'Finance' })).toHaveAccessibleDescription(/approves recharge and withdraw orders/);

    await create();
    expect(username).toHaveAccessibleDescription('Please enter a username');
    expect(password).toHaveAccessibleDescription('Please enter a password');
    expect(within(dialog).getByText('Please choose a role')).toBeInTheDocument();

    await user.type(username, 'ab');
    expect(username).toHaveAccessibleDescription('Username must be 3-20 characters');
    await user.type(username, ' c');
    expect(username).toHaveAccessibleDescription('Username may contain only letters, digits and underscores');
    await user.clear(username);
    await user.type(username, 'a'.repeat(21));
    expect(username).toHaveAccessibleDescription('Username must be 3-20 characters');
    await user.clear(username);
    await user.type(username, 'Fiona');
    await user.type(password, '12345');
    expect(password).toHaveAccessibleDescription('Password must be at least 6 characters');
    await user.type(password, '6');
    await user.click(within(dialog).getByRole('radio', { name: 'Support' }));
    expect(within(dialog).queryByText('Please choose a role')).toBeNull();
    expect(api.count('POST /api/admin/admins')).toBe(0);

    // The server's refusal lands on its field.
    await create();
    expect(await within(dialog).findByText('Username already exists')).toBeInTheDocument();
    expect(username).toHaveAttribute('aria-invalid', 'true');

    await user.clear(username);
    await user.type(username, 'sam_2');
    await create();
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(api.calls.filter((c) => c.key === 'POST /api/admin/admins').at(-1)?.body).toEqual({ username: 'sam_2', password: '123456', role: 'support' });
    expect(toasts()).toContain('Admin sam_2 created');
    await waitFor(() => expect(within(screen.getByRole('list', { name: 'Back-office accounts' })).getAllByRole('listitem')).toHaveLength(3));
  });

  it('disables an admin only after a confirmation that says their sessions end, and enables again', async () => {
    const api = server([row(1, 'root', 'super'), row(2, 'fiona', 'finance', { sessions: 2, lastSignIn: 1_700_000_100_000 })]);
    const { user } = renderAt(<AdminsPage />);
    await list();
    await user.click(screen.getByRole('button', { name: 'Disable fiona' }));
    let dialog = screen.getByRole('dialog', { name: 'Disable fiona?' });
    expect(dialog).toHaveTextContent('fiona will no longer be able to sign in or act. Their live sessions (2) end at once');
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(api.count('POST /api/admin/admins/2/disabled')).toBe(0);

    await user.click(screen.getByRole('button', { name: 'Disable fiona' }));
    dialog = screen.getByRole('dialog', { name: 'Disable fiona?' });
    await user.click(within(dialog).getByRole('button', { name: 'Disable' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(api.calls.find((c) => c.key === 'POST /api/admin/admins/2/disabled')?.body).toEqual({ disabled: true });
    expect(toasts()).toContain('fiona is disabled');
    const fiona = await screen.findByRole('listitem', { name: 'fiona' });
    await waitFor(() => expect(fiona).toHaveTextContent('Disabled'));

    await user.click(within(fiona).getByRole('button', { name: 'Enable fiona' }));
    dialog = screen.getByRole('dialog', { name: 'Enable fiona?' });
    await user.click(within(dialog).getByRole('button', { name: 'Enable' }));
    await waitFor(() => expect(api.calls.at(-2)?.body).toEqual({ disabled: false }));
    await waitFor(() => expect(screen.getByRole('listitem', { name: 'fiona' })).toHaveTextContent('Enabled'));
  });

  it('shows a refusal inside the confirmation', async () => {
    mockApi({
      'GET /api/admin/admins': () => ({ data: [row(1, 'root', 'super'), row(2, 'fiona', 'finance')] }),
      'POST /api/admin/admins/2/disabled': () => ({ status: 404, code: 'ADMIN_NOT_FOUND', message: 'Admin not found' }),
    });
    const { user } = renderAt(<AdminsPage />);
    await list();
    await user.click(screen.getByRole('button', { name: 'Disable fiona' }));
    const dialog = screen.getByRole('dialog', { name: 'Disable fiona?' });
    await user.click(within(dialog).getByRole('button', { name: 'Disable' }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent('Admin not found');
  });
});
