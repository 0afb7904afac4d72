import { screen, waitFor, within } from '@testing-library/react';
import { beforeEach, describe, expect, it } from 'vitest';

import { type AdminInfo, useAdminSession } from '@/stores/admin-session';
import { mockApi } from '@/testing/api';
import { renderAt } from '@/testing/render';

import { checkAdjustment } from '../api';
import { UsersPage } from './users-page';

const OPERATOR: AdminInfo = { id: 2, username: 'ops', role: 'operator', permissions: ['users:read', 'users:write'] };
const READER: AdminInfo = { id: 3, username: 'reader', role: 'viewer', permissions: ['users:read'] };

const mona = (frozen = false, available = '25') => ({
  user: { uid: 7, username: 'mona', nickname: '', email: 'mona@example.com', emailVerified: true, lastLogin: 0, joinTime: 1_700_000_000_000, inviteCode: 'ABCDEFGH', twoFactor: false, frozen },
  available,
  frozenAmount: '0',
  inPosition: '10',
  inviter: null,
  openContracts: 1,
});

const SESSION = { device: 'Firefox 128 on Linux', ip: '203.0.113.9', createdAt: 1_700_000_000_000, expiresAt: 1_700_604_800_000 };

function server(state: { frozen: boolean; available: string; sessions?: unknown[] } = { frozen: false, available: '25' }) {
  return mockApi({
    'GET /api/admin/users': (_b, url) => ({ data: url.searchParams.get('q') === 'nobody' ? { items: [], total: 0 } : { items: [mona(state.frozen, state.available)], total: 1 } }),
    'GET /api/admin/users/7': () => ({ data: { ...mona(state.frozen, state.available), sessions: state.sessions ?? [] } }),
    'GET /api/admin/trades': () => ({ data: { items: [], total: 0 } }),
    'POST /api/admin/users/7/freeze': (body) => {
      state.frozen = (body as { frozen: boolean }).frozen;
      return { data: {} };
    },
    'POST /api/admin/users/7/adjust': (body) => {
      state.available = String(25 + Number((body as { amount: string }).amount));
      return { data: {} };
    },
  });
}

describe('back-office users', () => {
  beforeEach(() => useAdminSession.getState().signIn('t', OPERATOR));

  it('searches and says when nothing matches', async () => {
    const api = server();
    const { user } = renderAt(<UsersPage />);
    expect(await screen.findByRole('button', { name: 'Open mona (UID 7)' })).toBeInTheDocument();
    const search = screen.getByRole('searchbox', { name: 'Search users' });
    expect(search).toHaveAccessibleDescription(/A number finds that UID exactly; any text finds usernames and e-mails that contain it/);
    await user.type(search, 'nobody');
    await user.click(screen.getByRole('button', { name: 'Search' }));
    expect(await screen.findByText('No user matches')).toBeInTheDocument();
    expect(api.calls.at(-1)?.url.searchParams.get('q')).toBe('nobody');
  });

  it('freezes a user only with a reason, and adjusts the balance by a checked amount', async () => {
    const api = server();
    const { user } = renderAt(<UsersPage />);
    await user.click(await screen.findByRole('button', { name: 'Open mona (UID 7)' }));
    const dialog = await screen.findByRole('dialog', { name: 'User UID 7' });
    const freeze = await within(dialog).findByRole('form', { name: 'Freeze account' });
    await user.click(within(freeze).getByRole('button', { name: 'Freeze account' }));
    expect(within(freeze).getByRole('alert')).toHaveTextContent('Please give a reason');
    expect(api.count('POST /api/admin/users/7/freeze')).toBe(0);
    await user.type(within(freeze).getByLabelText('Reason'), 'chargeback check');
    await user.click(within(freeze).getByRole('button', { name: 'Freeze account' }));
    await waitFor(() => expect(within(dialog).getByText('Frozen')).toBeInTheDocument());
    expect(api.calls.find((c) => c.key.endsWith('/freeze'))?.body).toEqual({ frozen: true, reason: 'chargeback check' });
    expect(within(dialog).getByRole('form', { name: 'Unfreeze account' })).toBeInTheDocument();

    const adjust = within(dialog).getByRole('form', { name: 'Adjust balance' });
    await user.type(within(adjust).getByLabelText('Amount (USDT)'), '1e3');
    await user.type(within(adjust).getByLabelText('Reason'), 'goodwill');
    await user.click(within(adjust).getByRole('button', { name: 'Adjust balance' }));
    expect(within(adjust).getByText(/Enter a non-zero amount/)).toBeInTheDocument();
    await user.clear(within(adjust).getByLabelText('Amount (USDT)'));
    await user.type(within(adjust).getByLabelText('Amount (USDT)'), '-5.50');
    await user.click(within(adjust).getByRole('button', { name: 'Adjust balance' }));
    await waitFor(() => expect(dialog).toHaveTextContent('19.50 USDT'));
    expect(api.calls.find((c) => c.key.endsWith('/adjust'))?.body).toEqual({ amount: '-5.50', reason: 'goodwill' });
  });

  it('shows a reader the user without the actions', async () => {
    useAdminSession.getState().signIn('t', READER);
    server();
    const { user } = renderAt(<UsersPage />);
    await user.click(await screen.findByRole('button', { name: 'Open mona (UID 7)' }));
    const dialog = await screen.findByRole('dialog', { name: 'User UID 7' });
    await within(dialog).findByText('mona@example.com ✓');
    expect(within(dialog).queryByRole('form')).toBeNull();
  });

  it("shows where the user is signed in now, or that they are signed in nowhere", async () => {
    server({ frozen: false, available: '25', sessions: [SESSION, { ...SESSION, device: '', ip: '2001:db8::1' }] });
    const { user } = renderAt(<UsersPage />);
    await user.click(await screen.findByRole('button', { name: 'Open mona (UID 7)' }));
    const sessions = await screen.findByRole('region', { name: 'Signed in now (2)' });
    const [firefox, unknown] = within(sessions).getAllByRole('listitem');
    expect(firefox).toHaveTextContent('Firefox 128 on Linux');
    expect(firefox).toHaveTextContent('IP 203.0.113.9');
    expect(firefox).toHaveTextContent(/Since .*2023/);
    expect(firefox).toHaveTextContent(/Expires .*2023/);
    expect(unknown).toHaveTextContent('Unknown device');
    expect(unknown).toHaveTextContent('2001:db8::1');
    await user.click(screen.getByRole('button', { name: 'Close' }));

    server();
    await user.click(await screen.findByRole('button', { name: 'Open mona (UID 7)' }));
    const none = await screen.findByRole('region', { name: 'Signed in now (0)' });
    expect(none).toHaveTextContent('Not signed in on any device right now');
  });

  it('checks an adjustment as the server does', () => {
    expect(checkAdjustment('25', 'x')).toEqual({});
    expect(checkAdjustment('-10.50', 'x')).toEqual({});
    for (const bad of ['0', '-0.00', '1.234', '+5', '1e3', ' ', '12345678901']) expect(checkAdjustment(bad, 'x').amount).toBeDefined();
    expect(checkAdjustment('5', '  ').reason).toBeDefined();
  });
});
