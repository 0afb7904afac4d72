import { screen, within } from '@testing-library/react';
import { beforeEach, vi } from 'vitest';

import { useSession } from '@/stores/session';
import { mockApi } from '@/testing/api';
import { renderAt } from '@/testing/render';

import { AccountStatement } from './account-statement';

const STATEMENT = {
  account: 'real',
  opening: '100.00',
  closing: '375.00',
  count: 3,
  totalIn: '500.00',
  totalOut: '-225.00',
  byType: [
    { type: 'deposit', amount: '500.00' },
    { type: 'withdraw', amount: '-200.00' },
    { type: 'transfer_out', amount: '-25.00' },
    { type: 'profit', amount: '0' },
  ],
};

beforeEach(() => {
  vi.unstubAllGlobals();
  useSession.setState({ token: 'tok', user: { uid: 7, username: 'kate' } as never });
});

const at = (query: string) => renderAt(<AccountStatement />, { path: '/account/statement', route: `/account/statement?${query}` });

test("the statement reads the range's local days and shows opening + movements = closing", async () => {
  const api = mockApi({ 'GET /api/wallet/statement': () => ({ data: STATEMENT }) });
  at('account=real&start=2026-11-01&end=2026-11-20');
  const table = await screen.findByTestId('statement');
  const sent = api.calls[0]!.url.searchParams;
  expect([sent.get('account'), sent.get('start'), sent.get('end')]).toEqual([
    'real',
    String(new Date(2026, 10, 1).getTime()),
    String(new Date(2026, 10, 21).getTime() - 1),
  ]);
  const rows = within(table)
    .getAllByRole('row')
    .map((row) => row.textContent);
  // Types without a movement are left out.
  expect(rows).toEqual(['Opening balance100.00', 'Deposit+500.00', 'Withdrawal-200.00', 'Transfer out-25.00', 'Closing balance375.00']);
  expect(screen.getByText('Movements in this period: 3. Every one of them, with its time and balance, is in the CSV export of the transaction history.')).toBeInTheDocument();
  expect(screen.getByText('November 1, 2026 – November 20, 2026')).toBeInTheDocument();
});

test('Print hands the page to the browser; a range that ends before it starts is refused', async () => {
  mockApi({ 'GET /api/wallet/statement': () => ({ data: STATEMENT }) });
  const print = vi.fn();
  vi.stubGlobal('print', print);
  const { user, unmount } = at('account=demo');
  await screen.findByTestId('statement');
  expect(screen.getByText('Since the account was opened')).toBeInTheDocument();
  await user.click(screen.getByRole('button', { name: 'Print or save as PDF' }));
  expect(print).toHaveBeenCalledOnce();
  unmount();

  const api = mockApi({ 'GET /api/wallet/statement': () => ({ data: STATEMENT }) });
  at('start=2026-11-20&end=2026-11-01');
  expect(await screen.findByText('The end date is before the start date')).toBeInTheDocument();
  expect(api.calls).toHaveLength(0);
});
