import { act, screen, within } from '@testing-library/react';
import { beforeEach, vi } from 'vitest';

import { useSession } from '@/stores/session';
import { mockApi } from '@/testing/api';
import { renderAt } from '@/testing/render';
import type { ContractRow } from '@/types/api';

import { useContractFeed } from '../hooks/use-contract-feed';
import { useContracts } from '../stores/contracts';
import { LiveContracts } from './live-contracts';

/** The private stream's listeners, by frame type, as the feed registers them. */
const listeners = new Map<string, (frame: { type: string; data: unknown }) => void>();
vi.mock('@/lib/ws', () => ({
  useWsEvent: (type: string, listener: (frame: { type: string; data: unknown }) => void) => listeners.set(type, listener),
  ws: { serverNow: () => Date.now() },
}));
const emit = (type: string, data: unknown) => act(() => listeners.get(type)!({ type, data }));

function openRow(id: number): ContractRow {
  const now = Date.now();
  return {
    id,
    user: 3,
    account: 'demo',
    symbol: 'BTCUSDT',
    direction: 'up',
    stake: '10',
    fee: '0',
    payoutRate: '0.85',
    duration: 60,
    acceptedAt: now - 5_000,
    entry: { sequence: 400, time: now - 4_000, price: '96000.00' },
    expiryAt: now + 56_000,
    exit: null,
    outcome: null,
    credited: null,
    profit: null,
    settledAt: null,
    status: 'open',
  };
}

const frame = (offer: string | null, reason: string | null = null) => ({
  contractId: 123,
  offer,
  reason,
  price: offer ? '96010.00' : null,
  tickIndex: offer ? 456 : null,
  tickTime: offer ? Date.now() : null,
});

function Screen() {
  useContractFeed();
  return <LiveContracts symbol="BTCUSDT" price="96010.00" precision={2} />;
}

beforeEach(() => {
  vi.unstubAllGlobals();
  listeners.clear();
  useSession.setState({ token: 'tok', user: null });
  useContracts.setState({ byId: {}, offers: {} });
});

test('an entered contract shows its live offer from the stream, or why there is none', async () => {
  const api = mockApi({
    'GET /api/trade/contracts': () => ({ data: { items: [openRow(123)], total: 1 } }),
    // Read once, before any frame came.
    'GET /api/trade/contracts/123/offer': () => ({ data: { contractId: 123, offer: null, reason: 'few_ticks', quote: null } }),
  });
  renderAt(<Screen />, { path: '/trade/*', route: '/trade/BTCUSDT' });
  const card = await screen.findByTestId('contract-123');
  expect(await within(card).findByText('No offer yet: too few recent prices')).toBeInTheDocument();
  expect(api.count('GET /api/trade/contracts/123/offer')).toBe(1);

  emit('order.offer', frame('8.78'));
  const sell = within(card).getByRole('button', { name: 'Sell contract 123 for 8.78 USDT' });
  expect(sell).toHaveTextContent('Sell 8.78');
  emit('order.offer', frame('9.02'));
  expect(within(card).getByRole('button', { name: 'Sell contract 123 for 9.02 USDT' })).toHaveTextContent('Sell 9.02');
  emit('order.offer', frame(null, 'near_expiry'));
  expect(within(card).queryByRole('button', { name: /Sell contract/ })).toBeNull();
  expect(within(card).getByText('No offer in the last seconds')).toBeInTheDocument();
  // Frames are not a reason to ask again.
  expect(api.count('GET /api/trade/contracts/123/offer')).toBe(1);
});

test('confirming sells at the offer shown; the settlement that follows reads "Sold early" and the offer leaves', async () => {
  const api = mockApi({
    'GET /api/trade/contracts': () => ({ data: { items: [openRow(123)], total: 1 } }),
    'GET /api/trade/contracts/123/offer': () => ({ status: 409, code: 'SALE_UNAVAILABLE', message: 'This contract cannot be sold now', data: { reason: 'not_entered' } }),
    'POST /api/trade/contracts/123/sell': () => ({ data: { contractId: 123, credited: '8.78' } }),
  });
  const { user } = renderAt(<Screen />, { path: '/trade/*', route: '/trade/BTCUSDT' });
  const card = await screen.findByTestId('contract-123');
  expect(await within(card).findByText('No offer before the entry tick')).toBeInTheDocument();
  emit('order.offer', frame('8.78'));
  await user.click(within(card).getByRole('button', { name: 'Sell contract 123 for 8.78 USDT' }));
  // A newer frame while the dialog is open does not change the offer being confirmed.
  emit('order.offer', frame('8.80'));
  const dialog = screen.getByRole('dialog', { name: 'Sell before expiry' });
  expect(within(dialog).getByText('8.78 USDT')).toBeInTheDocument();
  await user.click(within(dialog).getByRole('button', { name: 'Sell for 8.78 USDT' }));
  await vi.waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
  expect(api.calls.filter((c) => c.key === 'POST /api/trade/contracts/123/sell').map((c) => c.body)).toEqual([{ offer: '8.78' }]);

  emit('order.settled', {
    contractId: 123,
    symbol: 'BTCUSDT',
    account: 'demo',
    direction: 'up',
    outcome: 'sold',
    result: 'loss',
    amount: '1.22',
    profit: '-1.22',
    credited: '8.78',
    stake: '10',
    entryPrice: '96000.00',
    exitPrice: '96010.00',
    exitTime: Date.now(),
    settledAt: Date.now(),
  });
  expect(within(card).getByRole('status')).toHaveTextContent('Sold early for 8.78 USDT');
  expect(within(card).queryByRole('button', { name: /Sell contract/ })).toBeNull();
  expect(useContracts.getState().offers[123]).toBeUndefined();
  // A late frame for a settled contract changes nothing.
  emit('order.offer', frame('8.70'));
  expect(useContracts.getState().offers[123]).toBeUndefined();
});

test('a copy of a trader’s order is marked with the trader, from the list and from the `order.accepted` frame', async () => {
  mockApi({
    'GET /api/trade/contracts': () => ({ data: { items: [{ ...openRow(123), copiedFrom: 3 }], total: 1 } }),
    'GET /api/trade/contracts/123/offer': () => ({ data: { contractId: 123, offer: null, reason: 'few_ticks', quote: null } }),
  });
  renderAt(<Screen />, { path: '/trade/*', route: '/trade/BTCUSDT' });
  expect(within(await screen.findByTestId('contract-123')).getByText('Copied from #3')).toBeInTheDocument();

  const accepted = { symbol: 'BTCUSDT', account: 'demo', direction: 'down', amount: '5', fee: '0', payoutRate: '0.85', duration: 60, acceptedAt: Date.now() };
  emit('order.accepted', { ...accepted, contractId: 124, copiedFrom: 9 });
  emit('order.accepted', { ...accepted, contractId: 125, copiedFrom: null });
  expect(within(screen.getByTestId('contract-124')).getByText('Copied from #9')).toBeInTheDocument();
  expect(screen.getByTestId('contract-125')).not.toHaveTextContent('Copied from');
});
