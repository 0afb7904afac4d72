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

const SALE = {
  tick: tick(130, '96505.00', 1_700_000_003_000),
  windowFrom: 70,
  returns: 58,
  sumSq: '123456789',
  sumGapMs: 60_000,
  timeLeftMs: 2_100,
  sd: 123_456,
  distance: 51_808,
  z: 4_196,
  probability: 662_620,
  winCredit: '18.50',
  fair: '12.25',
  spread: '0.05',
  offer: '8.78',
};
const SOLD = contract(9, {
  status: 'settled',
  outcome: 'sold',
  exit: tick(130, '96505.00', 1_700_000_003_000),
  credited: '8.78',
  profit: '-1.22',
  settledAt: 1_700_000_003_000,
  sale: SALE,
});

test('a contract sold early reads "Sold early" with what the sale paid, and its details list the sale figures', async () => {
  const handlers = mockApi({
    'GET /api/trade/contracts': (_body, url) => {
      const items = url.searchParams.get('status') === 'settled' ? [SOLD] : [];
      return { data: { items, total: items.length } };
    },
    'GET /api/trade/contracts/9': () => ({ data: SOLD }),
  });
  const { user } = renderAt(<ContractRecords />, { path: '/contract-record', route: '/contract-record' });
  const row = await screen.findByRole('button', { name: 'Contract 9, show details' });
  expect(row).toHaveTextContent('Sold early for 8.78 USDT');
  expect(row).toHaveTextContent('-1.22');
  // A settled contract has nothing to sell.
  expect(screen.queryByRole('button', { name: /Sell contract/ })).toBeNull();

  await user.click(row);
  const details = await screen.findByTestId('sale-details');
  const figure = (label: string) => within(details).getByText(label).nextElementSibling?.textContent;
  expect(figure('Offer paid')).toBe('8.78 USDT');
  expect(figure('Chance of winning at the sale')).toBe('66.26%');
  expect(figure('Payout if it had won')).toBe('18.50 USDT');
  expect(figure('Spread')).toBe('5%');
  expect(figure('Price at the sale')).toBe('96505.00');
  expect(figure('Sale tick (log index)')).toBe('#130');
  expect(within(screen.getByTestId('contract-details')).getByText('Sold early')).toBeInTheDocument();
  expect(handlers.count('GET /api/trade/contracts/9')).toBe(1);
});

test('an entered open contract can be sold at its offer, asked once when no frame came yet', async () => {
  const api = mockApi({
    'GET /api/trade/contracts': (_body, url) => {
      const items = url.searchParams.get('status') === 'settled' ? [] : [RUNNING, contract(10, { entry: null, expiryAt: null, status: 'waiting_entry' })];
      return { data: { items, total: items.length } };
    },
    'GET /api/trade/contracts/8/offer': () => ({ data: { contractId: 8, offer: '8.78', reason: null, quote: null } }),
    'POST /api/trade/contracts/8/sell': () => ({ data: { contractId: 8, credited: '8.78' } }),
  });
  const { user } = renderAt(<ContractRecords />, { path: '/contract-record', route: '/contract-record' });
  const sell = await screen.findByRole('button', { name: 'Sell contract 8 for 8.78 USDT' });
  expect(sell).toHaveTextContent('Sell 8.78');
  // Not entered yet: nothing to sell, nothing asked.
  expect(screen.queryByRole('button', { name: /Sell contract 10/ })).toBeNull();
  expect(api.count('GET /api/trade/contracts/10/offer')).toBe(0);

  await user.click(sell);
  const dialog = screen.getByRole('dialog', { name: 'Sell before expiry' });
  await user.click(within(dialog).getByRole('button', { name: 'Sell for 8.78 USDT' }));
  await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
  expect(api.calls.filter((c) => c.key === 'POST /api/trade/contracts/8/sell').map((c) => c.body)).toEqual([{ offer: '8.78' }]);
  expect(api.count('GET /api/trade/contracts/8/offer')).toBe(1);
});

test('a copy of a trader’s order is marked "Copied from #3" in the list and in its details, which link to the trader', async () => {
  const COPY = contract(11, { copiedFrom: 3 });
  mockApi({
    'GET /api/trade/contracts': (_body, url) => {
      const items = url.searchParams.get('status') === 'settled' ? [] : [COPY, RUNNING];
      return { data: { items, total: items.length } };
    },
    'GET /api/trade/contracts/11': () => ({ data: COPY }),
    'GET /api/trade/contracts/8/offer': () => ({ data: { contractId: 8, offer: null, reason: 'unavailable', quote: null } }),
    'GET /api/trade/contracts/11/offer': () => ({ data: { contractId: 11, offer: null, reason: 'unavailable', quote: null } }),
  });
  const { user, router } = renderAt(<ContractRecords />, { path: '/contract-record', route: '/contract-record' });
  const row = await screen.findByRole('button', { name: 'Contract 11, copied from #3, show details' });
  expect(within(row).getByText('Copied from #3')).toHaveClass('pill-copy');
  // The user's own order has no mark.
  expect(screen.getByRole('button', { name: 'Contract 8, show details' })).not.toHaveTextContent('Copied from');

  await user.click(row);
  const dialog = await screen.findByRole('dialog', { name: 'Contract details' });
  const mark = await within(dialog).findByRole('link', { name: 'Copied from #3' });
  expect(mark).toHaveAttribute('href', '/copy/3');
  await user.click(mark);
  await waitFor(() => expect(router.state.location.pathname).toBe('/copy/3'));
  expect(screen.queryByRole('dialog')).toBeNull();
});

/** The server with my own contracts and copies, answering `copied` (and paging) as it does. */
function serverWithCopies(own: ContractRow[], copies: ContractRow[]) {
  return mockApi({
    'GET /api/trade/contracts': (_body, url) => {
      const copied = url.searchParams.get('copied');
      const all = url.searchParams.get('status') === 'settled' ? [] : copied === 'true' ? copies : copied === 'false' ? own : [...copies, ...own];
      const page = Number(url.searchParams.get('page'));
      const size = Number(url.searchParams.get('pageSize'));
      return { data: { items: all.slice((page - 1) * size, page * size), total: all.length } };
    },
  });
}

/** Each read's `copied` and page, as sent. */
const filters = (api: ReturnType<typeof mockApi>) =>
  api.calls.filter((c) => c.key === 'GET /api/trade/contracts').map((c) => `${c.url.searchParams.get('status')} ${c.url.searchParams.get('copied') ?? 'all'} ${c.url.searchParams.get('page')}`);

test('the filter is read from the address: ?copied=true shows only the copies and opens on them', async () => {
  const api = serverWithCopies([RUNNING], [contract(11, { copiedFrom: 3 })]);
  renderAt(<ContractRecords />, { path: '/contract-record', route: '/contract-record?copied=true' });
  expect(await screen.findByRole('button', { name: 'Contract 11, copied from #3, show details' })).toBeInTheDocument();
  expect(screen.queryByRole('button', { name: 'Contract 8, show details' })).toBeNull();
  const filter = screen.getByRole('radiogroup', { name: 'Show' });
  expect(within(filter).getByRole('radio', { name: 'Copies' })).toBeChecked();
  expect(within(filter).getByRole('radio', { name: 'All' })).not.toBeChecked();
  expect(filters(api)).toEqual(['open true 1']);
});

test('?copied=false shows only my own orders; with none it says so', async () => {
  const api = serverWithCopies([], [contract(11, { copiedFrom: 3 })]);
  renderAt(<ContractRecords />, { path: '/contract-record', route: '/contract-record?tab=open&copied=false' });
  expect(await screen.findByText('No orders of your own yet')).toBeInTheDocument();
  expect(screen.getByRole('radio', { name: 'My orders' })).toBeChecked();
  expect(filters(api)).toEqual(['open false 1']);
});

test('a choice in the filter sends copied=true/false (none for All), keeps it in the address and goes back to the first page', async () => {
  const own = Array.from({ length: 25 }, (_, i) => contract(100 + i));
  const copies = [contract(11, { copiedFrom: 3 })];
  const api = serverWithCopies(own, copies);
  const { user, router } = renderAt(<ContractRecords />, { path: '/contract-record', route: '/contract-record?tab=open' });
  await screen.findByRole('button', { name: 'Contract 11, copied from #3, show details' });
  expect(screen.getByRole('radio', { name: 'All' })).toBeChecked();
  await user.click(screen.getByRole('button', { name: 'Next' }));
  expect(await screen.findByText('Page 2 of 2')).toBeInTheDocument();

  await user.click(screen.getByRole('radio', { name: 'Copies' }));
  expect(await screen.findByRole('button', { name: 'Contract 11, copied from #3, show details' })).toBeInTheDocument();
  await waitFor(() => expect(screen.getAllByRole('listitem')).toHaveLength(1));
  expect(screen.getByRole('radio', { name: 'Copies' })).toBeChecked();
  expect(router.state.location.search).toBe('?tab=open&copied=true');

  await user.click(screen.getByRole('radio', { name: 'My orders' }));
  expect(await screen.findByRole('button', { name: 'Contract 100, show details' })).toBeInTheDocument();
  expect(screen.queryByRole('button', { name: /Contract 11,/ })).toBeNull();
  expect(router.state.location.search).toBe('?tab=open&copied=false');

  await user.click(screen.getByRole('radio', { name: 'All' }));
  expect(await screen.findByRole('button', { name: 'Contract 11, copied from #3, show details' })).toBeInTheDocument();
  expect(router.state.location.search).toBe('?tab=open');
  expect(filters(api)).toEqual(['open all 1', 'open all 2', 'open true 1', 'open false 1', 'open all 1']);
});

test('with ?copied=true and no tab, the page opens on the settled copies when no copy is open', async () => {
  const SETTLED_COPY = contract(12, { copiedFrom: 3, status: 'settled', outcome: 'loss', exit: tick(160, '96400.00', 1_700_000_005_100), credited: '0', profit: '-10', settledAt: 1_700_000_005_100 });
  const api = mockApi({
    'GET /api/trade/contracts': (_body, url) => {
      const copied = url.searchParams.get('copied') === 'true';
      const items = url.searchParams.get('status') === 'settled' ? (copied ? [SETTLED_COPY] : [SETTLED_COPY, SETTLED]) : copied ? [] : [RUNNING];
      return { data: { items, total: items.length } };
    },
  });
  renderAt(<ContractRecords />, { path: '/contract-record', route: '/contract-record?copied=true' });
  expect(await screen.findByRole('button', { name: 'Contract 12, copied from #3, show details' })).toBeInTheDocument();
  expect(screen.getByRole('tab', { name: 'Settled' })).toHaveAttribute('aria-selected', 'true');
  expect(filters(api)).toEqual(['open true 1', 'settled true 1']);
});
