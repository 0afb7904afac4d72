import { screen, waitFor, within } from '@testing-library/react';
import { beforeEach, describe, expect, it } from 'vitest';

import { type AdminInfo, useAdminSession } from '@/stores/admin-session';
import { useToasts } from '@/stores/toast';
import { mockApi } from '@/testing/api';
import { renderAt } from '@/testing/render';

import type { EarlyClose } from '../api';
import { checkEarlyClose, toEarlyCloseBody, toEarlyCloseForm } from '../form';
import { EarlyCloseSection } from './early-close-section';

const OPERATIONS: AdminInfo = { id: 1, username: 'ops', role: 'operations', permissions: ['rules:read', 'rules:write', 'products:read', 'products:write'] };
const READER: AdminInfo = { id: 2, username: 'reader', role: 'viewer', permissions: ['rules:read'] };

const terms: EarlyClose = {
  enabled: true,
  cutoffSecs: 5,
  spread: '0.05',
  durations: [{ duration: 300, spread: '0.03' }],
  products: [{ symbol: 'EURUSD', enabled: false, spread: '0' }],
  windowReturns: 120,
  windowReturnsMin: 20,
  rule: ['An entered contract may be sold back before expiry.'],
};
const products = [
  { symbol: 'BTCUSDT', name: 'Bitcoin', category: 'crypto', precision: 2, enabled: true, hours: 'always', source: 'simulated' },
  { symbol: 'EURUSD', name: 'EUR/USD', category: 'forex', precision: 5, enabled: true, hours: 'forex', source: 'simulated' },
];
const toasts = () => useToasts.getState().toasts.map((t) => t.text);
const form = () => screen.getByRole('form', { name: 'Early close' });

describe('early close terms', () => {
  beforeEach(() => {
    useAdminSession.getState().signIn('t', OPERATIONS);
    useToasts.setState({ toasts: [] });
  });

  it('reads and writes the terms as the server does', () => {
    const typed = toEarlyCloseForm(terms);
    expect(typed).toEqual({ enabled: true, cutoffSecs: '5', spread: '0.05', durations: { 300: '0.03' }, products: { EURUSD: { enabled: false, spread: '' } } });
    expect(checkEarlyClose(typed)).toEqual({});
    expect(checkEarlyClose({ ...typed, cutoffSecs: '604801' }).cutoffSecs).toBe('admin.rules.early.errors.cutoff');
    expect(checkEarlyClose({ ...typed, cutoffSecs: '1.5' }).cutoffSecs).toBeDefined();
    expect(checkEarlyClose({ ...typed, spread: '1.01' }).spread).toBe('admin.rules.errors.rate');
    expect(checkEarlyClose({ ...typed, spread: '0.12345' }).spread).toBeDefined();
    expect(checkEarlyClose({ ...typed, durations: { 60: '', 300: '2' } })).toEqual({ 'durations.300': 'admin.rules.errors.rate' });
    expect(checkEarlyClose({ ...typed, products: { BTCUSDT: { enabled: true, spread: '-0.1' } } })).toEqual({ 'products.BTCUSDT': 'admin.rules.errors.rate' });
    // Empty overrides, and products offered with nothing added, take the defaults: not sent.
    const body = toEarlyCloseBody({
      ...typed,
      durations: { 60: ' ', 300: '0.03', 30: '0' },
      products: { EURUSD: { enabled: false, spread: '' }, BTCUSDT: { enabled: true, spread: '0.0100' }, ETHUSDT: { enabled: true, spread: '0' } },
    });
    expect(body).toEqual({
      enabled: true,
      cutoffSecs: 5,
      spread: '0.05',
      durations: [
        { duration: 30, spread: '0' },
        { duration: 300, spread: '0.03' },
      ],
      products: [
        { symbol: 'BTCUSDT', enabled: true, spread: '0.0100' },
        { symbol: 'EURUSD', enabled: false, spread: '0' },
      ],
    });
  });

  it('loads the terms with a spread for each duration and product, and saves the edited terms', async () => {
    let saved = terms;
    const api = mockApi({
      'GET /api/admin/rules/early-close': () => ({ data: saved }),
      'GET /api/admin/products': () => ({ data: products }),
      'PUT /api/admin/rules/early-close': (body) => {
        saved = { ...saved, ...(body as Partial<EarlyClose>) };
        return { data: saved };
      },
    });
    const { user } = renderAt(<EarlyCloseSection durations={[60, 300]} />);

    const enabled = await screen.findByRole('switch', { name: 'Offer early close' });
    expect(enabled).toBeChecked();
    expect(screen.getByLabelText('Cut-off before expiry (seconds)')).toHaveValue('5');
    expect(screen.getByText('No offer in the last 5 s before expiry')).toBeInTheDocument();
    const spread = screen.getByLabelText('Default spread');
    expect(spread).toHaveValue('0.05');
    expect(spread).toHaveAccessibleDescription('5% of the fair value');
    expect(screen.getByLabelText('Spread for 1 min')).toHaveValue('');
    expect(screen.getByLabelText('Spread for 1 min')).toHaveAccessibleDescription('Empty: the default, 5%');
    expect(screen.getByLabelText('Spread for 5 min')).toHaveValue('0.03');
    expect(screen.getByText(/last 120 price changes; with fewer than 20/)).toBeInTheDocument();
    const btc = screen.getByRole('rowheader', { name: /BTCUSDT/ }).closest('tr')!;
    expect(btc).toHaveTextContent('Bitcoin');
    expect(within(btc).getByRole('switch', { name: 'Early close on BTCUSDT' })).toBeChecked();
    expect(screen.getByRole('switch', { name: 'Early close on EURUSD' })).not.toBeChecked();

    await user.clear(screen.getByLabelText('Cut-off before expiry (seconds)'));
    await user.type(screen.getByLabelText('Cut-off before expiry (seconds)'), '10');
    await user.clear(spread);
    await user.type(spread, '0.04');
    expect(spread).toHaveAccessibleDescription('4% of the fair value');
    await user.type(screen.getByLabelText('Spread for 1 min'), '0.02');
    await user.clear(screen.getByLabelText('Spread for 5 min'));
    await user.type(screen.getByLabelText('Extra spread for BTCUSDT'), '0.01');
    expect(screen.getByLabelText('Extra spread for BTCUSDT')).toHaveAccessibleDescription('1% added');
    await user.click(screen.getByRole('switch', { name: 'Early close on EURUSD' }));
    await user.click(screen.getByRole('button', { name: 'Save early-close terms' }));

    await waitFor(() => expect(api.count('PUT /api/admin/rules/early-close')).toBe(1));
    expect(api.calls.find((c) => c.key === 'PUT /api/admin/rules/early-close')?.body).toEqual({
      enabled: true,
      cutoffSecs: 10,
      spread: '0.04',
      durations: [{ duration: 60, spread: '0.02' }],
      products: [{ symbol: 'BTCUSDT', enabled: true, spread: '0.01' }],
    });
    await waitFor(() => expect(toasts()).toContain('Early-close terms saved'));
    expect(screen.getByLabelText('Spread for 5 min')).toHaveValue('');
    expect(screen.getByLabelText('Spread for 1 min')).toHaveValue('0.02');
  });

  it("refuses bad terms before calling the server, and shows the server's refusal on its field", async () => {
    const api = mockApi({
      'GET /api/admin/rules/early-close': () => ({ data: terms }),
      'GET /api/admin/products': () => ({ data: products }),
      'PUT /api/admin/rules/early-close': () => ({ status: 400, code: 'VALIDATION', field: 'spread', message: 'The spread must be a fraction from 0 to 1' }),
    });
    const { user } = renderAt(<EarlyCloseSection durations={[60]} />);
    const spread = await screen.findByLabelText('Default spread');
    await user.clear(spread);
    await user.type(spread, '5');
    await user.type(screen.getByLabelText('Extra spread for BTCUSDT'), '0.5.');
    await user.click(screen.getByRole('button', { name: 'Save early-close terms' }));
    expect(spread).toHaveAccessibleDescription('Enter a fraction from 0 to 1 with at most 4 decimals');
    expect(spread).toHaveAttribute('aria-invalid', 'true');
    expect(screen.getByLabelText('Extra spread for BTCUSDT')).toHaveAccessibleDescription('Enter a fraction from 0 to 1 with at most 4 decimals');
    expect(api.count('PUT /api/admin/rules/early-close')).toBe(0);

    await user.clear(spread);
    await user.type(spread, '1');
    await user.clear(screen.getByLabelText('Extra spread for BTCUSDT'));
    await user.click(screen.getByRole('button', { name: 'Save early-close terms' }));
    await waitFor(() => expect(spread).toHaveAccessibleDescription('The spread must be a fraction from 0 to 1'));
    expect(within(form()).getByRole('alert')).toHaveTextContent('The spread must be a fraction from 0 to 1');
    expect(api.count('PUT /api/admin/rules/early-close')).toBe(1);
    expect(toasts()).toEqual([]);
  });

  it('shows a refusal about the products for the products', async () => {
    mockApi({
      'GET /api/admin/rules/early-close': () => ({ data: { ...terms, durations: [] } }),
      'GET /api/admin/products': () => ({ data: products }),
      'PUT /api/admin/rules/early-close': () => ({ status: 400, code: 'VALIDATION', field: 'products', message: 'Too many products' }),
    });
    const { user } = renderAt(<EarlyCloseSection durations={[]} />);
    await user.click(await screen.findByRole('button', { name: 'Save early-close terms' }));
    const products = screen.getByRole('group', { name: 'By product' });
    expect(await within(products).findByRole('alert')).toHaveTextContent('Too many products');
    expect(screen.getByText('No durations yet: add a rule first.')).toBeInTheDocument();
  });

  it('shows a reader the terms without actions, and the products the terms name without the product list', async () => {
    useAdminSession.getState().signIn('t', READER);
    const api = mockApi({ 'GET /api/admin/rules/early-close': () => ({ data: terms }) });
    renderAt(<EarlyCloseSection durations={[300]} />);
    expect(await screen.findByRole('switch', { name: 'Offer early close' })).toBeDisabled();
    expect(screen.getByLabelText('Default spread')).toHaveAttribute('readonly');
    expect(screen.getByText(/The product list is not available/)).toBeInTheDocument();
    expect(screen.getByRole('switch', { name: 'Early close on EURUSD' })).toBeDisabled();
    expect(screen.queryByRole('button')).toBeNull();
    expect(api.count('GET /api/admin/products')).toBe(0);
  });

  it('offers a retry when the terms could not be loaded', async () => {
    let fail = true;
    mockApi({
      'GET /api/admin/rules/early-close': () => (fail ? { status: 500, code: 'INTERNAL', message: 'Server error' } : { data: terms }),
      'GET /api/admin/products': () => ({ data: products }),
    });
    const { user } = renderAt(<EarlyCloseSection durations={[]} />);
    expect(await screen.findByText('Server error')).toBeInTheDocument();
    fail = false;
    await user.click(screen.getByRole('button', { name: 'Retry' }));
    expect(await screen.findByRole('switch', { name: 'Offer early close' })).toBeChecked();
  });
});
