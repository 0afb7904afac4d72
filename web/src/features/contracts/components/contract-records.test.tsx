import { screen, waitFor, within } from '@testing-library/react';
import { beforeEach } from 'vitest';

import { useSession } from '@/stores/session';
import { mockApi } from '@/testing/api';
import { testUser } from '@/testing/fixtures';
import { renderAt } from '@/testing/render';
import type { ContractRow } from '@/types/api';

import { ContractRecords } from './contract-records';

const tick = (sequence: number, price: string, time: number) => ({ sequence, time, price });

function contract(id: number, patch: Partial<ContractRow> = {}): ContractRow {
  return {
    id,
    user: 3,
    account: 'demo',
    symbol: 'BTCUSDT',
    direction: 'up',
    stake: '10',
    fee: '0',
    payoutRate: '0.85',
    duration: 5,
    acceptedAt: 1_700_000_000_000,
    entry: tick(100, '96500.10', 1_700_000_000_100),
    expiryAt: 1_700_000_005_100,
    exit: null,
    outcome: null,
    credited: null,
    profit: null,
    settledAt: null,
    status: 'open',
    ...patch,
  };
}

const SETTLED = contract(7, { status: 'settled', outcome: 'win', exit: tick(160, '96510.00', 1_700_000_005_100), credited: '18.5', profit: '8.5', settledAt: 1_700_000_005_100 });
const RUNNING = contract(8);

/** The server with these open and settled contracts. */
function server(open: ContractRow[], settled: ContractRow[]) {
  return mockApi({
    'GET /api/trade/contracts': (_body, url) => {
      const items = url.searchParams.get('status') === 'settled' ? settled : open;
      return { data: { items, total: items.length } };
    },
  });
}

const statuses = (api: ReturnType<typeof server>) => api.calls.filter((c) => c.key === 'GET /api/trade/contracts').map((c) => c.url.searchParams.get('status'));

beforeEach(() => useSession.getState().signIn('tok', testUser()));

test('with nothing open, a contract that just settled: the page opens on the settled list', async () => {
  const api = server([], [SETTLED]);
  const { router } = renderAt(<ContractRecords />, { path: '/contract-record', route: '/contract-record' });
  expect(await screen.findByRole('button', { name: 'Contract 7, show details' })).toHaveTextContent('Profit');
  expect(screen.getByRole('tab', { name: 'Settled' })).toHaveAttribute('aria-selected', 'true');
  expect(screen.getByRole('tab', { name: 'Open' })).toHaveAttribute('aria-selected', 'false');
  expect(screen.queryByText('No contracts yet')).toBeNull();
  // Each list was read once; the choice is not written into the address.
  expect(statuses(api)).toEqual(['open', 'settled']);
  expect(router.state.location.search).toBe('');
});

test('with a contract open, the page opens on the open list without reading the settled one', async () => {
  const api = server([RUNNING], [SETTLED]);
  renderAt(<ContractRecords />, { path: '/contract-record', route: '/contract-record' });
  expect(await screen.findByRole('button', { name: 'Contract 8, show details' })).toBeInTheDocument();
  expect(screen.getByRole('tab', { name: 'Open' })).toHaveAttribute('aria-selected', 'true');
  expect(statuses(api)).toEqual(['open']);
});

test('with no contracts at all, the open list says there are none', async () => {
  server([], []);
  renderAt(<ContractRecords />, { path: '/contract-record', route: '/contract-record' });
  expect(await screen.findByText('No contracts yet')).toBeInTheDocument();
  expect(screen.getByRole('tab', { name: 'Open' })).toHaveAttribute('aria-selected', 'true');
});

test('a tab in the address is respected, even when its list is empty', async () => {
  const api = server([], [SETTLED]);
  renderAt(<ContractRecords />, { path: '/contract-record', route: '/contract-record?tab=open' });
  expect(await screen.findByText('No contracts yet')).toBeInTheDocument();
  expect(screen.getByRole('tab', { name: 'Open' })).toHaveAttribute('aria-selected', 'true');
  expect(statuses(api)).toEqual(['open']);
});

test('a click on a tab shows its list and keeps the choice in the address', async () => {
  const api = server([RUNNING], [SETTLED]);
  const { user, router } = renderAt(<ContractRecords />, { path: '/contract-record', route: '/contract-record' });
  await screen.findByRole('button', { name: 'Contract 8, show details' });
  await user.click(screen.getByRole('tab', { name: 'Settled' }));
  const list = await screen.findByRole('list');
  await waitFor(() => expect(within(list).getByRole('button', { name: 'Contract 7, show details' })).toBeInTheDocument());
  expect(screen.getByRole('tab', { name: 'Settled' })).toHaveAttribute('aria-selected', 'true');
  expect(router.state.location.search).toBe('?tab=settled');
  await user.click(screen.getByRole('tab', { name: 'Open' }));
  expect(await screen.findByRole('button', { name: 'Contract 8, show details' })).toBeInTheDocument();
  expect(router.state.location.search).toBe('?tab=open');
  expect(statuses(api)).toEqual(['open', 'settled', 'open']);
});
