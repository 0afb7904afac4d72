import { screen, waitFor, within } from '@testing-library/react';
import { beforeEach, describe, expect, it } from 'vitest';

import { type AdminInfo, useAdminSession } from '@/stores/admin-session';
import { mockApi } from '@/testing/api';
import { renderAt } from '@/testing/render';

import { usePendingRefresh } from '../stores/refresh';
import { OrdersPage } from './orders-page';

const FINANCE: AdminInfo = { id: 3, username: 'fin', role: 'super', permissions: ['orders:read', 'orders:write'] };
const READER: AdminInfo = { id: 4, username: 'reader', role: 'viewer', permissions: ['orders:read'] };

const order = (id: number, status: string, extra: object = {}) => ({
  id,
  user: 7,
  kind: 'withdraw',
  amount: '100',
  fee: '2',
  actual: '98',
  method: 'wallet',
  details: { chain: 'tron', address: 'TE2H9hWjzYdwzDFRJfx9BFhr4MmjH1CHaz' },
  receipt: null,
  status,
  remark: '',
  createdAt: 1_700_000_000_000,
  completedAt: null,
  ...extra,
});

describe('withdraw orders', () => {
  beforeEach(() => useAdminSession.getState().signIn('t', FINANCE));

  it('lists pending orders with their details and approves one after a confirmation', async () => {
    let pending = [order(11, 'pending'), order(12, 'pending')];
    const api = mockApi({
      'GET /api/admin/withdraw-orders': (_b, url) => {
        expect(url.searchParams.get('status')).toBe('pending');
        return { data: { items: pending, total: pending.length } };
      },
      'POST /api/admin/withdraw-orders/11/approve': () => {
        pending = [order(12, 'pending')];
        return { data: {} };
      },
    });
    const handledBefore = usePendingRefresh.getState().handled;
    const { user } = renderAt(<OrdersPage kind="withdraw" />);
    const card = (await screen.findByText('Order #11')).closest('li')!;
    expect(within(card).getByText('TE2H9hWjzYdwzDFRJfx9BFhr4MmjH1CHaz')).toBeInTheDocument();
    expect(within(card).getByText('TRON')).toBeInTheDocument();
    expect(card).toHaveTextContent('98.00 USDT (fee 2.00)');

    await user.click(screen.getByRole('button', { name: 'Approve order #11' }));
    const dialog = screen.getByRole('dialog', { name: 'Approve order #11?' });
    expect(dialog).toHaveTextContent('100.00 USDT stays frozen');
    await user.click(within(dialog).getByRole('button', { name: 'Approve' }));
    await waitFor(() => expect(screen.queryByText('Order #11')).toBeNull());
    expect(api.count('POST /api/admin/withdraw-orders/11/approve')).toBe(1);
    expect(usePendingRefresh.getState().handled).toBe(handledBefore + 1);
  });

  it('refuses a rejection without a remark, then sends the remark', async () => {
    const api = mockApi({
      'GET /api/admin/withdraw-orders': () => ({ data: { items: [order(21, 'pending')], total: 1 } }),
      'POST /api/admin/withdraw-orders/21/reject': () => ({ data: {} }),
    });
    const { user } = renderAt(<OrdersPage kind="withdraw" />);
    await user.click(await screen.findByRole('button', { name: 'Reject order #21' }));
    const dialog = screen.getByRole('dialog', { name: 'Reject order #21?' });
    await user.click(within(dialog).getByRole('button', { name: 'Reject' }));
    expect(within(dialog).getByRole('alert')).toHaveTextContent('Please give a remark');
    expect(api.count('POST /api/admin/withdraw-orders/21/reject')).toBe(0);
    await user.type(within(dialog).getByLabelText('Remark'), 'name mismatch');
    await user.click(within(dialog).getByRole('button', { name: 'Reject' }));
    await waitFor(() => expect(api.count('POST /api/admin/withdraw-orders/21/reject')).toBe(1));
    expect(api.calls.find((c) => c.key.endsWith('/reject'))?.body).toEqual({ remark: 'name mismatch' });
  });

  it('offers paid and failed for a withdrawal being processed, and shows the server refusal', async () => {
    mockApi({
      'GET /api/admin/withdraw-orders': () => ({ data: { items: [order(31, 'processing')], total: 1 } }),
      'POST /api/admin/withdraw-orders/31/paid': () => ({ status: 409, code: 'ORDER_WRONG_STATE', message: 'This order is not in a state that allows this action' }),
    });
    const { user } = renderAt(<OrdersPage kind="withdraw" />);
    expect(await screen.findByRole('button', { name: 'Mark order #31 failed' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Approve order #31' })).toBeNull();
    await user.click(screen.getByRole('button', { name: 'Mark order #31 paid' }));
    const dialog = screen.getByRole('dialog');
    await user.click(within(dialog).getByRole('button', { name: 'Mark paid' }));
    expect(await within(dialog).findByText('This order is not in a state that allows this action')).toBeInTheDocument();
  });

  it('shows no actions to an admin who may only read', async () => {
    useAdminSession.getState().signIn('t', READER);
    mockApi({ 'GET /api/admin/withdraw-orders': () => ({ data: { items: [order(41, 'pending')], total: 1 } }) });
    renderAt(<OrdersPage kind="withdraw" />);
    await screen.findByText('Order #41');
    expect(screen.queryByRole('button', { name: /order #41/ })).toBeNull();
  });

  it('filters by state and says when there is nothing', async () => {
    const api = mockApi({ 'GET /api/admin/withdraw-orders': () => ({ data: { items: [], total: 0 } }) });
    const { user } = renderAt(<OrdersPage kind="withdraw" />);
    expect(await screen.findByText('No orders here')).toBeInTheDocument();
    await user.selectOptions(screen.getByRole('combobox', { name: 'Status' }), 'failed');
    await waitFor(() => expect(api.calls.at(-1)?.url.searchParams.get('status')).toBe('failed'));
    await user.selectOptions(screen.getByRole('combobox', { name: 'Status' }), '');
    await waitFor(() => expect(api.calls.at(-1)?.url.searchParams.has('status')).toBe(false));
  });
});
