import { screen, within } from '@testing-library/react';
import { beforeEach, vi } from 'vitest';

import { useSession } from '@/stores/session';
import { useToasts } from '@/stores/toast';
import { mockApi } from '@/testing/api';
import { renderAt } from '@/testing/render';

import type { PriceAlert } from '../api';
import { useAlerts } from '../stores/alerts';
import { PriceAlertButton } from './price-alert-button';

beforeEach(() => {
  vi.unstubAllGlobals();
  useSession.setState({ token: 't' });
  useAlerts.setState({ waiting: [], loaded: false });
  useToasts.setState({ toasts: [] });
});

const lastToast = () => useToasts.getState().toasts.at(-1)?.text;

const alert = (id: number, price: string, direction: 'above' | 'below'): PriceAlert => ({
  id,
  symbol: 'BTCUSDT',
  price,
  direction,
  createdAt: Date.now(),
  firedAt: null,
  firedPrice: null,
  firedSequence: null,
});

test('an alert is checked as typed, set above or below the price, listed and removed', async () => {
  let waiting: PriceAlert[] = [alert(1, '80000', 'below')];
  const api = mockApi({
    'GET /api/user/price-alerts': () => ({ data: { waiting, max: 20 } }),
    'POST /api/user/price-alerts': (body) => {
      const { price } = body as { price: string };
      const made = alert(2, price, 'above');
      waiting = [...waiting, made];
      return { data: made };
    },
    'DELETE /api/user/price-alerts/1': () => ((waiting = waiting.filter((a) => a.id !== 1)), { data: {} }),
  });
  const { user } = renderAt(<PriceAlertButton symbol="BTCUSDT" name="BTC/USDT" precision={2} price="91234.56" />);
  await user.click(screen.getByRole('button', { name: 'Price alert' }));
  const dialog = await screen.findByRole('dialog', { name: 'Price alert · BTC/USDT' });
  expect(await within(dialog).findByText(/falls to/)).toBeInTheDocument();
  expect(within(dialog).getByText('1 of 20')).toBeInTheDocument();

  const input = within(dialog).getByLabelText('Alert price');
  await user.type(input, '91234.56');
  await user.click(within(dialog).getByRole('button', { name: 'Set alert' }));
  expect(within(dialog).getByRole('alert')).toHaveTextContent('The price is there now');
  await user.clear(input);
  await user.type(input, '95000.123');
  expect(within(dialog).getByRole('alert')).toHaveTextContent('At most 2 decimal places');
  await user.clear(input);
  await user.type(input, '95000.5');
  expect(within(dialog).getByText('You will be told when the price rises to it')).toBeInTheDocument();
  await user.click(within(dialog).getByRole('button', { name: 'Set alert' }));
  await vi.waitFor(() => expect(lastToast()).toBe('Alert set: price rises to 95,000.50'));
  expect(api.calls.find((c) => c.key === 'POST /api/user/price-alerts')?.body).toEqual({ symbol: 'BTCUSDT', price: '95000.5' });
  expect(within(dialog).getByText('2 of 20')).toBeInTheDocument();

  await user.click(within(dialog).getByRole('button', { name: 'Remove the alert on BTCUSDT at 80,000.00' }));
  await vi.waitFor(() => expect(lastToast()).toBe('Alert removed'));
  expect(within(dialog).queryByRole('button', { name: /80,000\.00/ })).not.toBeInTheDocument();
  expect(api.count('POST /api/user/price-alerts')).toBe(1);
});

test('the server’s refusal is shown and nothing is added', async () => {
  mockApi({
    'GET /api/user/price-alerts': () => ({ data: { waiting: [], max: 20 } }),
    'POST /api/user/price-alerts': () => ({ status: 409, code: 'TOO_MANY_PRICE_ALERTS', message: 'You have as many price alerts as allowed: remove one first' }),
  });
  const { user } = renderAt(<PriceAlertButton symbol="BTCUSDT" name="BTC/USDT" precision={2} price="100" />);
  await user.click(screen.getByRole('button', { name: 'Price alert' }));
  const dialog = await screen.findByRole('dialog');
  await user.type(within(dialog).getByLabelText('Alert price'), '120');
  await user.click(within(dialog).getByRole('button', { name: 'Set alert' }));
  expect(await within(dialog).findByText('You have as many price alerts as allowed: remove one first')).toBeInTheDocument();
  expect(within(dialog).getByText('No alerts waiting')).toBeInTheDocument();
});
