import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';

import { useAdminSession } from '@/stores/admin-session';
import { mockApi } from '@/testing/api';
import { renderAt } from '@/testing/render';

import { ProductsPage } from './products-page';

const btc = { symbol: 'BTCUSDT', name: 'Bitcoin', category: 'crypto', precision: 2, enabled: true, hours: 'always', source: 'simulated' };
const sui = { symbol: 'SUIUSDT', name: 'SUI/USDT', category: 'crypto', precision: 4, hours: 'always', source: 'simulated' };
const eur = { symbol: 'EURUSD', name: 'EUR/USD', category: 'forex', precision: 5, enabled: true, hours: 'forex', source: 'replay: eurusd.csv' };

describe('products', () => {
  it('disables and renames a product, saying what disabling does', async () => {
    useAdminSession.getState().signIn('t', { id: 1, username: 'root', role: 'super', permissions: ['products:read', 'products:write'] });
    let list = [btc, eur];
    const api = mockApi({
      'GET /api/admin/products': () => ({ data: list }),
      'GET /api/admin/catalogue': () => ({ data: [] }),
      'PUT /api/admin/products/EURUSD': (body) => {
        list = [btc, { ...eur, ...(body as object) }];
        return { data: {} };
      },
    });
    const { user } = renderAt(<ProductsPage />);
    const row = (await screen.findByRole('rowheader', { name: 'EURUSD' })).closest('tr')!;
    expect(row).toHaveTextContent('Forex hours');
    await user.click(within(row).getByRole('button', { name: 'Edit EURUSD' }));
    const dialog = screen.getByRole('dialog', { name: 'Product EURUSD' });
    await user.clear(within(dialog).getByLabelText('Display name'));
    await user.click(within(dialog).getByRole('button', { name: 'Save product' }));
    expect(within(dialog).getByText('Please enter a display name')).toBeInTheDocument();
    await user.type(within(dialog).getByLabelText('Display name'), 'Euro / Dollar');
    await user.click(within(dialog).getByLabelText('Enabled (takes new orders)'));
    expect(within(dialog).getByText(/takes no new orders/)).toBeInTheDocument();
    await user.click(within(dialog).getByRole('button', { name: 'Save product' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(api.calls.find((c) => c.key.startsWith('PUT'))?.body).toEqual({ name: 'Euro / Dollar', enabled: false });
    const updated = (await screen.findByRole('rowheader', { name: 'EURUSD' })).closest('tr')!;
    await waitFor(() => expect(updated).toHaveTextContent('Disabled'));
  });

  it("shows where each product's prices come from", async () => {
    useAdminSession.getState().signIn('t', { id: 2, username: 'r', role: 'viewer', permissions: ['products:read'] });
    const eth = { ...btc, symbol: 'ETHUSDT', name: 'Ethereum', source: 'exchange: stream.binance.com' };
    const sol = { ...btc, symbol: 'SOLUSDT', name: 'Solana', source: '' };
    const xau = { ...btc, symbol: 'XAUUSD', name: 'Gold', source: 'fix: lp.example' };
    mockApi({ 'GET /api/admin/products': () => ({ data: [btc, eur, eth, sol, xau] }), 'GET /api/admin/catalogue': () => ({ data: [] }) });
    renderAt(<ProductsPage />);
    const header = await screen.findByRole('columnheader', { name: 'Price source' });
    const column = [...header.parentElement!.children].indexOf(header);
    const source = (symbol: string) => screen.getByRole('rowheader', { name: symbol }).closest('tr')!.children[column]!;
    expect(source('BTCUSDT')).toHaveTextContent("Simulated (platform's simulator)");
    expect(source('EURUSD')).toHaveTextContent('Replay of eurusd.csv');
    expect(source('ETHUSDT')).toHaveTextContent('Live exchange: stream.binance.com');
    expect(within(source('ETHUSDT') as HTMLElement).getByText('stream.binance.com')).toHaveAttribute('dir', 'ltr');
    expect(source('SOLUSDT')).toHaveTextContent('Not set');
    expect(source('XAUUSD')).toHaveTextContent('Source: fix: lp.example');
  });

  it('shows a reader no edit buttons', async () => {
    useAdminSession.getState().signIn('t', { id: 2, username: 'r', role: 'viewer', permissions: ['products:read'] });
    mockApi({ 'GET /api/admin/products': () => ({ data: [btc] }), 'GET /api/admin/catalogue': () => ({ data: [sui] }) });
    renderAt(<ProductsPage />);
    await screen.findByRole('rowheader', { name: 'BTCUSDT' });
    await screen.findByText('SUIUSDT');
    expect(screen.queryByRole('button')).toBeNull();
  });

  it('adds a product from the catalogue after saying what that does', async () => {
    useAdminSession.getState().signIn('t', { id: 1, username: 'root', role: 'super', permissions: ['products:read', 'products:write'] });
    let listed = [btc];
    let waiting = [sui];
    const api = mockApi({
      'GET /api/admin/products': () => ({ data: listed }),
      'GET /api/admin/catalogue': () => ({ data: waiting }),
      'POST /api/admin/products': () => {
        listed = [btc, { ...sui, enabled: true }];
        waiting = [];
        return { data: {} };
      },
    });
    const { user } = renderAt(<ProductsPage />);
    const section = await screen.findByRole('region', { name: 'From the catalogue' });
    await user.click(await within(section).findByRole('button', { name: 'Add SUIUSDT' }));
    const dialog = screen.getByRole('dialog', { name: 'Add SUIUSDT?' });
    expect(dialog).toHaveTextContent('open for new contracts at once');
    await user.click(within(dialog).getByRole('button', { name: 'Add to the markets' }));
    await screen.findByRole('rowheader', { name: 'SUIUSDT' });
    expect(api.calls.find((c) => c.key === 'POST /api/admin/products')?.body).toEqual({ symbol: 'SUIUSDT' });
    await within(section).findByText('Every catalogue product is listed');
  });

  it('keeps the dialog open with the refusal when the server says no', async () => {
    useAdminSession.getState().signIn('t', { id: 1, username: 'root', role: 'super', permissions: ['products:read', 'products:write'] });
    mockApi({
      'GET /api/admin/products': () => ({ data: [btc] }),
      'GET /api/admin/catalogue': () => ({ data: [sui] }),
      'POST /api/admin/products': () => ({ status: 409, code: 'PRODUCT_LISTED', message: 'This product is listed already' }),
    });
    const { user } = renderAt(<ProductsPage />);
    await user.click(await screen.findByRole('button', { name: 'Add SUIUSDT' }));
    const dialog = screen.getByRole('dialog', { name: 'Add SUIUSDT?' });
    await user.click(within(dialog).getByRole('button', { name: 'Add to the markets' }));
    await within(dialog).findByText('This product is listed already');
  });
});
