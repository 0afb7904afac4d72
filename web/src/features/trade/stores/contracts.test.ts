import { beforeEach, vi } from 'vitest';

import { mockApi } from '@/testing/api';

import { SETTLED_SHOWN_MAX, useContracts } from './contracts';

const accepted = (id: number) => ({
  contractId: id,
  symbol: 'BTCUSDT',
  account: 'demo' as const,
  direction: 'up' as const,
  amount: '10',
  fee: '0',
  payoutRate: '0.85',
  duration: 60,
  acceptedAt: 1_000,
});

const settled = (id: number, result: 'profit' | 'loss' | 'even' = 'profit', outcome = 'win') => ({
  contractId: id,
  symbol: 'BTCUSDT',
  account: 'demo' as const,
  direction: 'up' as const,
  outcome,
  result,
  amount: result === 'profit' ? '8.5' : '10',
  profit: result === 'profit' ? '8.5' : '-10',
  credited: '18.5',
  stake: '10',
  entryPrice: '100',
  exitPrice: '101',
  exitTime: 61_500,
  settledAt: 62_000,
});

beforeEach(() => {
  vi.unstubAllGlobals();
  useContracts.setState({ byId: {}, offers: {} });
});

const offer = (contractId: number, value: string | null, reason: string | null = null) => ({
  contractId,
  offer: value,
  reason,
  price: null,
  tickIndex: null,
  tickTime: null,
});

test('a contract waits for entry, runs, then settles with its result', () => {
  const store = useContracts.getState();
  store.accepted(accepted(1));
  expect(useContracts.getState().byId[1]).toMatchObject({ status: 'waiting_entry', entryPrice: null });
  store.entered({ contractId: 1, entryPrice: '100', entryTime: 1_500, entryIndex: 77, expiresAt: 61_500 });
  expect(useContracts.getState().byId[1]).toMatchObject({ status: 'open', entryPrice: '100', entryIndex: 77, expiresAt: 61_500 });
  store.settled(settled(1));
  expect(useContracts.getState().byId[1]).toMatchObject({ status: 'settled', result: 'profit', resultAmount: '8.5', exitPrice: '101' });
  // A late duplicate of an earlier event changes nothing.
  store.entered({ contractId: 1, entryPrice: '99', entryTime: 1_500, entryIndex: 70, expiresAt: 61_500 });
  store.accepted(accepted(1));
  expect(useContracts.getState().byId[1]).toMatchObject({ status: 'settled', entryPrice: '100' });
});

test('a void contract is marked void', () => {
  useContracts.getState().accepted(accepted(2));
  useContracts.getState().settled(settled(2, 'even', 'void_no_entry'));
  expect(useContracts.getState().byId[2]).toMatchObject({ status: 'void', outcome: 'void_no_entry' });
});

test('only the newest settled contracts stay on screen; open ones always do', () => {
  const store = useContracts.getState();
  store.accepted(accepted(100));
  for (let id = 1; id <= SETTLED_SHOWN_MAX + 3; id += 1) {
    store.accepted(accepted(id));
    store.settled(settled(id));
  }
  const ids = Object.keys(useContracts.getState().byId).map(Number);
  expect(ids).toContain(100);
  expect(ids).not.toContain(1);
  expect(ids.filter((id) => id !== 100)).toHaveLength(SETTLED_SHOWN_MAX);
});

test('the latest offer frame per open contract wins; a settlement or a dismissal removes it', () => {
  const store = useContracts.getState();
  store.offer(offer(1, '8.78'));
  // Not a contract on screen (yet): nothing kept.
  expect(useContracts.getState().offers).toEqual({});
  store.accepted(accepted(1));
  store.entered({ contractId: 1, entryPrice: '100', entryTime: 1_500, entryIndex: 77, expiresAt: 61_500 });
  store.offer(offer(1, '8.78'));
  store.offer(offer(1, '8.50'));
  expect(useContracts.getState().offers[1]).toEqual({ offer: '8.50', reason: null });
  store.offer(offer(1, null, 'near_expiry'));
  expect(useContracts.getState().offers[1]).toEqual({ offer: null, reason: 'near_expiry' });
  store.offer(offer(1, null));
  expect(useContracts.getState().offers[1]).toEqual({ offer: null, reason: 'unavailable' });
  store.settled({ ...settled(1, 'loss', 'sold'), credited: '8.50' });
  expect(useContracts.getState().offers[1]).toBeUndefined();
  expect(useContracts.getState().byId[1]).toMatchObject({ status: 'settled', outcome: 'sold', credited: '8.50' });
  store.offer(offer(1, '8.40'));
  expect(useContracts.getState().offers[1]).toBeUndefined();
});

test('reading the open contracts forgets old offers and asks once per entered contract; a frame that came first wins', async () => {
  const row = (id: number, entered: boolean) => ({
    id,
    user: 3,
    account: 'demo',
    symbol: 'BTCUSDT',
    direction: 'up',
    stake: '10',
    fee: '0',
    payoutRate: '0.85',
    duration: 60,
    acceptedAt: 1_000,
    entry: entered ? { sequence: 7, time: 1_500, price: '100' } : null,
    expiryAt: entered ? 61_500 : null,
    status: entered ? 'open' : 'waiting_entry',
  });
  let answer2: (value: never) => void = () => undefined;
  const api = mockApi({
    'GET /api/trade/contracts': () => ({ data: { items: [row(1, true), row(2, true), row(3, false)], total: 3 } }),
    'GET /api/trade/contracts/1/offer': () => ({ data: { contractId: 1, offer: '7.10', reason: null, quote: null } }),
    'GET /api/trade/contracts/2/offer': () => new Promise((done) => (answer2 = done)) as never,
  });
  useContracts.setState({ offers: { 9: { offer: '1.00', reason: null } } });
  await useContracts.getState().load();
  expect(useContracts.getState().offers[9]).toBeUndefined();
  await vi.waitFor(() => expect(useContracts.getState().offers[1]).toEqual({ offer: '7.10', reason: null }));
  useContracts.getState().offer(offer(2, '8.00'));
  answer2({ data: { contractId: 2, offer: '7.90', reason: null, quote: null } } as never);
  await new Promise((done) => setTimeout(done, 10));
  expect(useContracts.getState().offers[2]).toEqual({ offer: '8.00', reason: null });
  // Not entered: no question (its frames come once it is).
  expect(api.count('GET /api/trade/contracts/3/offer')).toBe(0);
  expect(api.count('GET /api/trade/contracts/1/offer')).toBe(1);
});
