import { screen, waitFor, within } from '@testing-library/react';
import { beforeEach, describe, expect, it } from 'vitest';

import { useAdminSession } from '@/stores/admin-session';
import { mockApi } from '@/testing/api';
import { renderAt } from '@/testing/render';

import { TeamsPage } from './teams-page';
import { TradesPage, readTradeDraft } from './trades-page';

const contract = {
  id: 5,
  user: 7,
  account: 'real',
  symbol: 'BTCUSDT',
  direction: 'up',
  stake: '10',
  fee: '0',
  payoutRate: '0.85',
  duration: 60,
  acceptedAt: 1_700_000_000_000,
  entry: { price: '100.50', time: 1_700_000_000_100, sequence: 3 },
  expiryAt: 1_700_000_060_100,
  exit: { price: '101.00', time: 1_700_000_060_000, sequence: 9 },
  outcome: 'win',
  credited: '18.50',
  profit: '8.50',
  settledAt: 1_700_000_060_200,
  status: 'settled',
};

describe('trades and teams', () => {
  beforeEach(() => useAdminSession.getState().signIn('t', { id: 1, username: 'root', role: 'super', permissions: ['trades:read', 'teams:read'] }));

  it('lists contracts with entry, exit and result, and filters them on the server', async () => {
    const api = mockApi({ 'GET /api/admin/trades': () => ({ data: { items: [contract], total: 1 } }) });
    const { user } = renderAt(<TradesPage />);
    const row = (await screen.findByRole('rowheader', { name: '5' })).closest('tr')!;
    expect(row).toHaveTextContent('100.50 → 101.00');
    expect(row).toHaveTextContent('Win +8.50');
    await user.type(screen.getByLabelText('UID'), '7');
    await user.type(screen.getByLabelText('Product'), 'btc/usdt');
    await user.selectOptions(screen.getByLabelText('Account'), 'real');
    await user.selectOptions(screen.getByLabelText('State'), 'settled');
    await user.click(screen.getByRole('button', { name: 'Apply' }));
    await waitFor(() => expect(api.calls.at(-1)?.url.searchParams.get('symbol')).toBe('BTCUSDT'));
    const q = api.calls.at(-1)!.url.searchParams;
    expect([q.get('user'), q.get('account'), q.get('status')]).toEqual(['7', 'real', 'settled']);
    expect(readTradeDraft({ user: '0', symbol: '', status: '', account: '', start: '', end: '' })).toEqual({ field: 'user', key: 'admin.trades.userInvalid' });
  });

  it("shows a user's team by generation, or says there is none", async () => {
    mockApi({
      'GET /api/admin/teams/7': () => ({
        data: [
          { generation: 1, count: 2, certified: 1, notCertified: 1, members: [{ uid: 8, username: 'nina', certified: true, joinTime: 1 }, { uid: 9, username: 'omar', certified: false, joinTime: 2 }] },
          { generation: 2, count: 0, certified: 0, notCertified: 0, members: [] },
          { generation: 3, count: 0, certified: 0, notCertified: 0, members: [] },
        ],
      }),
      'GET /api/admin/teams/8': () => ({ data: [1, 2, 3].map((g) => ({ generation: g, count: 0, certified: 0, notCertified: 0, members: [] })) }),
    });
    const { user } = renderAt(<TeamsPage />);
    await user.type(screen.getByLabelText('UID of the inviter'), '7');
    await user.click(screen.getByRole('button', { name: 'Show team' }));
    const first = await screen.findByRole('region', { name: 'Generation 1' });
    expect(first).toHaveTextContent('2 members, 1 certified, 1 not certified');
    expect(within(first).getByText('nina')).toBeInTheDocument();
    await user.clear(screen.getByLabelText('UID of the inviter'));
    await user.type(screen.getByLabelText('UID of the inviter'), '8');
    await user.click(screen.getByRole('button', { name: 'Show team' }));
    expect(await screen.findByText('UID 8 has invited nobody yet')).toBeInTheDocument();
  });
});
