import { screen, within } from '@testing-library/react';
import { afterEach } from 'vitest';
import { vi } from 'vitest';

import { mockApi } from '@/testing/api';
import { renderAt } from '@/testing/render';

import type { MarketItem } from '../api';
import { MarketList } from './market-list';

function item(symbol: string, name: string, patch: Partial<MarketItem> = {}): MarketItem {
  return {
    symbol,
    name,
    category: 'crypto',
    precision: 2,
    price: '100.5',
    change: '1',
    changePercent: '1.25',
    high: '101',
    low: '99',
    volume: '2500000',
    open: '99.5',
    close: '100.5',
    isOpen: true,
    stale: false,
    simulated: true,
    ...patch,
  };
}

const LIST = [
  item('BTCUSDT', 'BTC/USDT', { price: '96483.72', volume: '1530000000' }),
  item('ETHUSDT', 'ETH/USDT', { changePercent: '-0.40' }),
  item('EURUSD', 'EUR/USD', { category: 'forex', precision: 5, price: '1.0716', isOpen: false }),
];

afterEach(() => vi.unstubAllGlobals());

test('the crypto tab lists name, price, change and volume with suffixes; forex shows a closed market', async () => {
  mockApi({ 'GET /api/markets': () => ({ data: LIST }) });
  const { user } = renderAt(<MarketList />);
  const table = await screen.findByRole('table');
  const btc = within(table).getByRole('row', { name: /BTC\/USDT/ });
  expect(within(btc).getByText('96,483.72')).toBeInTheDocument();
  expect(within(btc).getByText('+1.25%')).toBeInTheDocument();
  expect(within(btc).getAllByText('1.53B').length).toBeGreaterThan(0);
  expect(within(table).getByRole('row', { name: /ETH\/USDT/ })).toHaveTextContent('-0.40%');
  expect(within(table).queryByText('EUR/USD')).toBeNull();

  await user.click(screen.getByRole('tab', { name: 'Forex' }));
  const eur = within(screen.getByRole('table')).getByRole('row', { name: /EUR\/USD/ });
  expect(within(eur).getByText('1.07160')).toBeInTheDocument();
  expect(within(eur).getByText('Closed')).toBeInTheDocument();
});

test('search narrows the list, with an empty state', async () => {
  mockApi({ 'GET /api/markets': () => ({ data: LIST }) });
  const { user } = renderAt(<MarketList />);
  await screen.findByRole('table');
  await user.type(screen.getByRole('searchbox', { name: 'Search markets' }), 'eth');
  expect(screen.getAllByRole('row')).toHaveLength(2); // header + ETH
  await user.clear(screen.getByRole('searchbox', { name: 'Search markets' }));
  await user.type(screen.getByRole('searchbox', { name: 'Search markets' }), 'nothing');
  expect(screen.getByText('No markets match your search')).toBeInTheDocument();
});

test('a failed load offers a retry', async () => {
  let fail = true;
  mockApi({ 'GET /api/markets': () => (fail ? { status: 500, code: 'INTERNAL', message: 'Server error, please try again later' } : { data: LIST }) });
  const { user } = renderAt(<MarketList />);
  expect(await screen.findByText('Server error, please try again later')).toBeInTheDocument();
  fail = false;
  await user.click(screen.getByRole('button', { name: 'Retry' }));
  expect(await screen.findByRole('table')).toBeInTheDocument();
});
