import { beforeEach } from 'vitest';

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

beforeEach(() => useContracts.setState({ byId: {} }));

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
