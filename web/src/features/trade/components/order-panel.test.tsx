import { act, screen, within } from '@testing-library/react';
import { beforeEach, vi } from 'vitest';

import { useDevice } from '@/stores/device';
import { useSession } from '@/stores/session';
import { useWallet } from '@/stores/wallet';
import { mockApi } from '@/testing/api';
import { renderAt } from '@/testing/render';

import { useContracts } from '../stores/contracts';
import { OrderPanel } from './order-panel';

const RULES = {
  rules: [
    { duration: 60, payoutRate: '0.85', minAmount: '1', maxAmount: '5000', feeRate: '0', enabled: true },
    { duration: 300, payoutRate: '0.80', minAmount: '5', maxAmount: '100', feeRate: '0.01', enabled: true },
    { duration: 900, payoutRate: '0.9', minAmount: '1', maxAmount: '10', feeRate: '0', enabled: false },
  ],
};

function balance(available: string) {
  return { account: 'demo' as const, total: available, available, inPosition: '0', frozen: '0', change24h: '0', change24hPercent: '0' };
}

beforeEach(() => {
  vi.unstubAllGlobals();
  useDevice.setState({ width: 1440, deviceClass: 'desktop' });
  useSession.setState({ token: 'tok', user: null });
  useWallet.setState({ account: 'demo', chosen: true, balances: { real: null, demo: balance('100'), tournament: null } });
  useContracts.setState({ byId: {} });
});

function panel(props: Partial<Parameters<typeof OrderPanel>[0]> = {}) {
  return renderAt(<OrderPanel symbol="BTCUSDT" marketOpen hasPrice {...props} />, { path: '/trade/*', route: '/trade/BTCUSDT' });
}

test('the durations come from the enabled rules, with their payout rates', async () => {
  mockApi({ 'GET /api/trade/rules': () => ({ data: RULES }) });
  panel();
  const durations = await screen.findByRole('radiogroup', { name: 'Duration' });
  expect(within(durations).getAllByRole('radio').map((r) => r.textContent)).toEqual(['1 min85%', '5 min80%']);
  expect(within(durations).getByRole('radio', { name: /1 min/ })).toHaveAttribute('aria-checked', 'true');
});

test('every amount rule has its message; the expected return is the stake times 1 + payout', async () => {
  const api = mockApi({ 'GET /api/trade/rules': () => ({ data: RULES }) });
  const { user } = panel();
  await screen.findByRole('radiogroup', { name: 'Duration' });
  const amount = screen.getByLabelText('Amount (USDT)');
  const up = screen.getByRole('button', { name: 'Buy Up' });

  await user.click(up);
  expect(screen.getByRole('alert')).toHaveTextContent('Please enter a valid amount');
  await user.type(amount, '1.005');
  await user.click(up);
  expect(screen.getByRole('alert')).toHaveTextContent('Please enter a valid amount');
  await user.clear(amount);
  await user.type(amount, '6000');
  await user.click(up);
  expect(screen.getByRole('alert')).toHaveTextContent('Amount must be between 1 and 5000');
  await user.clear(amount);
  await user.type(amount, '150');
  await user.click(up);
  expect(screen.getByRole('alert')).toHaveTextContent('Insufficient balance');

  await user.clear(amount);
  await user.type(amount, '10');
  expect(screen.getByText('18.50 USDT')).toBeInTheDocument();
  await user.click(screen.getByRole('radio', { name: /5 min/ }));
  expect(screen.getByText('18.00 USDT')).toBeInTheDocument();
  await user.clear(amount);
  await user.type(amount, '4');
  await user.click(up);
  expect(screen.getByRole('alert')).toHaveTextContent('Amount must be between 5 and 100');
  expect(api.count('POST /api/trade/orders')).toBe(0);
});

test('a guest is asked to log in first', async () => {
  useSession.setState({ token: null });
  mockApi({ 'GET /api/trade/rules': () => ({ data: RULES }) });
  const { user } = panel();
  await screen.findByRole('radiogroup', { name: 'Duration' });
  await user.click(screen.getByRole('button', { name: 'Buy Down' }));
  expect(screen.getByRole('alert')).toHaveTextContent('Please login first');
  expect(screen.getByRole('link', { name: 'Log in to trade' })).toHaveAttribute('href', '/login');
});

test('the confirm step states the rules, payout and fee; one click sends one order', async () => {
  let release: () => void = () => undefined;
  const api = mockApi({
    'GET /api/trade/rules': () => ({ data: RULES }),
    'POST /api/trade/orders': () => new Promise((done) => (release = () => done({ data: { contractId: 9, fee: '0.05', status: 'waiting_entry' } }))) as never,
  });
  const { user } = panel();
  await screen.findByRole('radiogroup', { name: 'Duration' });
  await user.type(screen.getByLabelText('Amount (USDT)'), '5');
  await user.click(screen.getByRole('radio', { name: /5 min/ }));
  await user.click(screen.getByRole('button', { name: 'Buy Down' }));

  const dialog = screen.getByRole('dialog', { name: 'Confirm trade' });
  for (const text of [
    'Entry spot: the first price tick after your order is accepted.',
    'Exit spot: the last tick at or before expiry (entry time + duration).',
    'If the exit equals the entry, your stake is returned.',
    "You may sell an entered contract back before expiry at the published offer: the chance of winning from the current price, the time left and the product's recent volatility, times the payout, less a spread. No offer in the last seconds before expiry, on a stale or closed market, or for a frozen or self-excluded account. You never get less than the offer you confirmed. Every sale's figures are in its settlement proof.",
  ]) {
    expect(within(dialog).getByText(text)).toBeInTheDocument();
  }
  expect(within(dialog).getByText('80%')).toBeInTheDocument();
  expect(within(dialog).getByText('0.05 USDT')).toBeInTheDocument();
  expect(within(dialog).getByText('9.00 USDT')).toBeInTheDocument();

  const confirm = within(dialog).getByRole('button', { name: 'Confirm order' });
  await user.click(confirm);
  expect(within(dialog).getByRole('button', { name: 'Placing order…' })).toBeDisabled();
  await user.click(within(dialog).getByRole('button', { name: 'Placing order…' }));
  await act(async () => release());
  await vi.waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
  expect(api.count('POST /api/trade/orders')).toBe(1);
  expect(api.calls.find((c) => c.key === 'POST /api/trade/orders')!.body).toEqual({
    symbol: 'BTCUSDT',
    direction: 'down',
    amount: '5',
    duration: 300,
    account: 'demo',
  });
  expect(useContracts.getState().byId[9]).toMatchObject({ status: 'waiting_entry', direction: 'down', amount: '5' });
});

test('a lost connection mid-order is never retried: the open contracts are read instead', async () => {
  const api = mockApi({
    'GET /api/trade/rules': () => ({ data: RULES }),
    'GET /api/trade/contracts': () => ({ data: { items: [], total: 0 } }),
  });
  api.fetch.mockImplementation(async (input: string, init?: RequestInit) => {
    const key = `${init?.method ?? 'GET'} ${new URL(input, 'http://x').pathname}`;
    api.calls.push({ key, body: init?.body ? JSON.parse(init.body as string) : undefined, url: new URL(input, 'http://x') });
    if (key === 'POST /api/trade/orders') throw new TypeError('Failed to fetch');
    const data = key === 'GET /api/trade/rules' ? RULES : { items: [], total: 0 };
    return new Response(JSON.stringify({ success: true, data, message: 'OK' }), { status: 200 });
  });
  const { user } = panel();
  await screen.findByRole('radiogroup', { name: 'Duration' });
  await user.type(screen.getByLabelText('Amount (USDT)'), '10');
  await user.click(screen.getByRole('button', { name: 'Buy Up' }));
  await user.click(screen.getByRole('button', { name: 'Confirm order' }));
  expect(await screen.findByRole('alert')).toHaveTextContent('It was not sent again');
  await vi.waitFor(() => expect(api.count('GET /api/trade/contracts')).toBe(1));
  expect(api.count('POST /api/trade/orders')).toBe(1);
});

test('a closed market cannot be traded', async () => {
  mockApi({ 'GET /api/trade/rules': () => ({ data: RULES }) });
  panel({ marketOpen: false });
  await screen.findByRole('radiogroup', { name: 'Duration' });
  expect(screen.getByRole('button', { name: 'Buy Up' })).toBeDisabled();
  expect(screen.getByText('The market is closed; trading resumes when it opens')).toBeInTheDocument();
});

test('on a phone the panel is a bar with the buy buttons; a buy that needs the fields opens it', async () => {
  useDevice.setState({ width: 390, deviceClass: 'mobile' });
  mockApi({ 'GET /api/trade/rules': () => ({ data: RULES }) });
  const { user } = panel();
  const toggle = screen.getByRole('button', { name: 'Show or hide the trading panel' });
  expect(toggle).toHaveAttribute('aria-expanded', 'false');
  expect(await screen.findByText('1 min · 85%')).toBeInTheDocument();
  expect(screen.getByLabelText('Amount (USDT)')).not.toBeVisible();
  await user.click(screen.getByRole('button', { name: 'Buy Up' }));
  expect(screen.getByRole('alert')).toHaveTextContent('Please enter a valid amount');
  expect(toggle).toHaveAttribute('aria-expanded', 'true');
  expect(screen.getByLabelText('Amount (USDT)')).toBeVisible();
});
