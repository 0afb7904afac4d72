import { screen, waitFor, within } from '@testing-library/react';
import { beforeEach, vi } from 'vitest';

import { mockApi } from '@/testing/api';
import { renderAt } from '@/testing/render';
import { useToasts } from '@/stores/toast';
import { useWallet } from '@/stores/wallet';

import { TransactionHistory } from './transaction-history';

const bill = (id: number, type: string, amount: string) => ({ id, account: 'real', type, amount, balance: '100', reference: 1, status: 'completed', time: 1_795_132_800_000 + id });

const statement = { account: 'real', opening: '0.00', closing: '400.00', count: 2, totalIn: '500', totalOut: '-100', byType: [] };

beforeEach(() => {
  vi.unstubAllGlobals();
  useWallet.setState({ account: 'real' });
});

test('totals, a type filter and local-day dates go to the server; an end before the start is refused', async () => {
  const api = mockApi({
    'GET /api/wallet/statement': () => ({ data: statement }),
    'GET /api/wallet/bills': (_, url) =>
      url.searchParams.get('type') === 'reward'
        ? { data: { items: [], total: 0, totalIn: '0', totalOut: '0', byType: [] } }
        : { data: { items: [bill(2, 'deposit', '500'), bill(1, 'transfer_out', '-100')], total: 2, totalIn: '500', totalOut: '-100', byType: [] } },
  });
  const { user } = renderAt(<TransactionHistory />);
  expect(await screen.findByText('Transfer out')).toBeInTheDocument();
  expect(screen.getByTestId('history-count')).toHaveTextContent('2');
  expect(within(screen.getByLabelText('Totals')).getByText('+500.00')).toBeInTheDocument();
  expect(within(screen.getByLabelText('Totals')).getByText('-100.00')).toBeInTheDocument();
  expect(screen.getByTestId('history-opening')).toHaveTextContent('0.00');
  expect(screen.getByTestId('history-closing')).toHaveTextContent('400.00');

  // Every bill type is a choice, early-close sales too.
  expect(within(screen.getByLabelText('Type')).getByRole('option', { name: 'Early close' })).toHaveValue('sale');
  await user.selectOptions(screen.getByLabelText('Type'), 'reward');
  expect(await screen.findByText('No transactions match these filters')).toBeInTheDocument();
  const last = () => api.calls.filter((c) => c.key === 'GET /api/wallet/bills').at(-1)!.url.searchParams;
  expect(last().get('type')).toBe('reward');

  await user.type(screen.getByLabelText('Start date'), '2026-11-20');
  expect(last().get('start')).toBe(String(new Date(2026, 10, 20).getTime()));
  await user.type(screen.getByLabelText('End date'), '2026-11-19');
  expect(await screen.findByText('The end date is before the start date')).toBeInTheDocument();
  expect(last().get('end')).toBeNull();
  await user.clear(screen.getByLabelText('End date'));
  await user.type(screen.getByLabelText('End date'), '2026-11-21');
  expect(last().get('end')).toBe(String(new Date(2026, 10, 22).getTime() - 1));
  expect(screen.queryByText('The end date is before the start date')).not.toBeInTheDocument();
});

test('pages, and a failed load offers a retry', async () => {
  let fail = true;
  const api = mockApi({
    'GET /api/wallet/statement': () => ({ data: statement }),
    'GET /api/wallet/bills': (_, url) =>
      fail ? { status: 500, code: 'INTERNAL', message: 'Server error' } : { data: { items: [bill(Number(url.searchParams.get('page')), 'fee', '-1')], total: 45, totalIn: '0', totalOut: '-45', byType: [] } },
  });
  const { user } = renderAt(<TransactionHistory />);
  expect(await screen.findByText('Server error')).toBeInTheDocument();
  fail = false;
  await user.click(screen.getByRole('button', { name: 'Retry' }));
  expect(await screen.findByText('Page 1 of 3')).toBeInTheDocument();
  await user.click(screen.getByRole('button', { name: 'Next' }));
  expect(await screen.findByText('Page 2 of 3')).toBeInTheDocument();
  const pages = api.calls.filter((c) => c.key === 'GET /api/wallet/bills');
  expect(pages.at(-1)!.url.searchParams.get('page')).toBe('2');
  // The balances do not depend on the page: asked for once.
  expect(api.count('GET /api/wallet/statement')).toBe(1);
});

test('Export CSV asks for every bill of the filters and saves the file the server names', async () => {
  const api = mockApi({
    'GET /api/wallet/statement': () => ({ data: statement }),
    'GET /api/wallet/bills': () => ({ data: { items: [bill(1, 'deposit', '500')], total: 1, totalIn: '500', totalOut: '0', byType: [] } }),
    'GET /api/wallet/bills/export': () => ({ file: { text: 'id,time\n1,2026-11-20T00:00:00Z\n', name: 'transactions-real.csv' } }),
  });
  // jsdom has no object URLs: the file handed to the link is kept here instead.
  const saved: string[] = [];
  let blob: Blob | null = null;
  const { createObjectURL, revokeObjectURL } = URL;
  URL.createObjectURL = (b: Blob) => ((blob = b), 'blob:export');
  URL.revokeObjectURL = () => {};
  const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
    saved.push(this.download);
  });
  const { user } = renderAt(<TransactionHistory />);
  await screen.findByText('Deposit');
  await user.selectOptions(screen.getByLabelText('Type'), 'deposit');
  await user.click(screen.getByRole('button', { name: 'Export CSV' }));
  await screen.findByRole('button', { name: 'Export CSV' });
  const sent = api.calls.find((c) => c.key === 'GET /api/wallet/bills/export')!.url.searchParams;
  expect([sent.get('account'), sent.get('type'), sent.get('page')]).toEqual(['real', 'deposit', null]);
  expect(saved).toEqual(['transactions-real.csv']);
  expect(await blob!.text()).toBe('id,time\n1,2026-11-20T00:00:00Z\n');
  click.mockRestore();
  Object.assign(URL, { createObjectURL, revokeObjectURL });
});

test('a refused export says why and saves nothing', async () => {
  mockApi({
    'GET /api/wallet/statement': () => ({ data: statement }),
    'GET /api/wallet/bills': () => ({ data: { items: [], total: 0, totalIn: '0', totalOut: '0', byType: [] } }),
    'GET /api/wallet/bills/export': () => ({ status: 429, code: 'RATE_LIMITED', message: 'Too many attempts, please try again later' }),
  });
  const click = vi.spyOn(HTMLAnchorElement.prototype, 'click');
  const { user } = renderAt(<TransactionHistory />);
  await user.click(await screen.findByRole('button', { name: 'Export CSV' }));
  await screen.findByRole('button', { name: 'Export CSV' });
  await waitFor(() => expect(useToasts.getState().toasts.map((t) => t.text)).toContain('Too many attempts, please try again later'));
  expect(click).not.toHaveBeenCalled();
  click.mockRestore();
});
