import { screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import { RECONNECT_DELAY_MS } from '@/lib/ws-client';
import { useAdminSession } from '@/stores/admin-session';
import { mockApi } from '@/testing/api';
import { FakeSocket, lastSocket, mockSocket } from '@/testing/fake-socket';
import { renderAt } from '@/testing/render';
import type { AdminContract } from '../api';

import { TeamsPage } from './teams-page';
import { TradesPage, readTradeDraft } from './trades-page';

const contract = {
  id: 5,
  user: 7,
  account: 'real',
  symbol: 'BTCUSDT',
  direction: 'up',
  stake: '10',
  fee: '0',
  payoutRate: '0.85',
  duration: 60,
  acceptedAt: 1_700_000_000_000,
  entry: { price: '100.50', time: 1_700_000_000_100, sequence: 3 },
  expiryAt: 1_700_000_060_100,
  exit: { price: '101.00', time: 1_700_000_060_000, sequence: 9 },
  outcome: 'win',
  credited: '18.50',
  profit: '8.50',
  settledAt: 1_700_000_060_200,
  status: 'settled',
};

describe('trades and teams', () => {
  beforeEach(() => {
    mockSocket();
    useAdminSession.getState().signIn('t', { id: 1, username: 'root', role: 'super', permissions: ['trades:read', 'teams:read'] });
  });

  it('lists contracts with entry, exit and result, and filters them on the server', async () => {
    const api = mockApi({ 'GET /api/admin/trades': () => ({ data: { items: [contract], total: 1 } }) });
    const { user } = renderAt(<TradesPage />);
    const row = (await screen.findByRole('rowheader', { name: '5' })).closest('tr')!;
    expect(row).toHaveTextContent('100.50 → 101.00');
    expect(row).toHaveTextContent('Win +8.50');
    await user.type(screen.getByLabelText('UID'), '7');
    await user.type(screen.getByLabelText('Product'), 'btc/usdt');
    await user.selectOptions(screen.getByLabelText('Account'), 'real');
    await user.selectOptions(screen.getByLabelText('State'), 'settled');
    await user.click(screen.getByRole('button', { name: 'Apply' }));
    await waitFor(() => expect(api.calls.at(-1)?.url.searchParams.get('symbol')).toBe('BTCUSDT'));
    const q = api.calls.at(-1)!.url.searchParams;
    expect([q.get('user'), q.get('account'), q.get('status')]).toEqual(['7', 'real', 'settled']);
    expect(readTradeDraft({ user: '0', symbol: '', status: '', account: '', start: '', end: '' })).toEqual({ field: 'user', key: 'admin.trades.userInvalid' });
  });

  it("shows a user's team by generation, or says there is none", async () => {
    mockApi({
      'GET /api/admin/teams/7': () => ({
        data: [
          { generation: 1, count: 2, certified: 1, notCertified: 1, members: [{ uid: 8, username: 'nina', certified: true, joinTime: 1 }, { uid: 9, username: 'omar', certified: false, joinTime: 2 }] },
          { generation: 2, count: 0, certified: 0, notCertified: 0, members: [] },
          { generation: 3, count: 0, certified: 0, notCertified: 0, members: [] },
        ],
      }),
      'GET /api/admin/teams/8': () => ({ data: [1, 2, 3].map((g) => ({ generation: g, count: 0, certified: 0, notCertified: 0, members: [] })) }),
    });
    const { user } = renderAt(<TeamsPage />);
    await user.type(screen.getByLabelText('UID of the inviter'), '7');
    await user.click(screen.getByRole('button', { name: 'Show team' }));
    const first = await screen.findByRole('region', { name: 'Generation 1' });
    expect(first).toHaveTextContent('2 members, 1 certified, 1 not certified');
    expect(within(first).getByText('nina')).toBeInTheDocument();
    await user.clear(screen.getByLabelText('UID of the inviter'));
    await user.type(screen.getByLabelText('UID of the inviter'), '8');
    await user.click(screen.getByRole('button', { name: 'Show team' }));
    expect(await screen.findByText('UID 8 has invited nobody yet')).toBeInTheDocument();
  });
});

/** A contract as the server lists it: waiting for its entry unless told otherwise. */
function row(id: number, patch: Partial<AdminContract> = {}): AdminContract {
  return {
    id,
    user: 7,
    account: 'real',
    symbol: 'BTCUSDT',
    direction: 'up',
    stake: '10',
    fee: '0',
    payoutRate: '0.85',
    duration: 60,
    acceptedAt: Date.now() - 1_000,
    entry: null,
    expiryAt: null,
    exit: null,
    outcome: null,
    credited: null,
    profit: null,
    settledAt: null,
    status: 'waiting_entry',
    ...patch,
  };
}

const trade = (data: unknown) => ({ type: 'adminTrade', data });
const rowOf = (id: number) => screen.getByRole('rowheader', { name: new RegExp(`^${id}\\b`) }).closest('tr')!;
const bodyRows = () => screen.getAllByRole('row').slice(1);
/** The rows' contract numbers, top to bottom, a new one marked as a screen reader hears it. */
const listed = () => bodyRows().map((r) => within(r).getByRole('rowheader').textContent);

describe('live trades', () => {
  /** The server's rows, newest first; every read is counted. */
  let rows: AdminContract[] = [];
  let api: ReturnType<typeof mockApi>;

  beforeEach(() => {
    mockSocket();
    useAdminSession.getState().signIn('admin-token', { id: 1, username: 'root', role: 'super', permissions: ['trades:read'] });
    rows = [];
    api = mockApi({
      'GET /api/admin/trades': (_b, url) => {
        const q = url.searchParams;
        const listed = rows.filter((r) => !q.get('symbol') || r.symbol === q.get('symbol'));
        const page = Number(q.get('page') ?? '1');
        const size = Number(q.get('pageSize') ?? '50');
        return { data: { items: listed.slice((page - 1) * size, page * size), total: listed.length } };
      },
    });
  });
  afterEach(() => vi.useRealTimers());

  /** Renders the page, waits for its list, and lets the server accept the admin's token. */
  async function openLive() {
    const view = renderAt(<TradesPage />);
    await screen.findByRole('table');
    const socket = lastSocket();
    socket.open();
    expect(socket.ops('adminAuth')).toEqual([{ op: 'adminAuth', id: 'auth', token: 'admin-token' }]);
    expect(screen.getByText('Connecting to live updates…')).toBeInTheDocument();
    socket.push({ type: 'adminAuthenticated', id: 'auth', data: { admin: 1 } });
    expect(await screen.findByText('Live: new trades appear as they happen')).toBeInTheDocument();
    return { ...view, socket };
  }

  it('puts a new contract on top of page 1, the page as long as before, and highlights it', async () => {
    rows = Array.from({ length: 50 }, (_, i) => row(100 - i, { status: 'settled', outcome: 'loss', profit: '-10' }));
    const { socket } = await openLive();
    expect(screen.queryByRole('navigation', { name: 'Pages' })).toBeNull();
    socket.push(trade({ kind: 'opened', contract: row(101, { symbol: 'ETHUSDT' }) }));
    const rowsNow = bodyRows();
    expect(rowsNow).toHaveLength(50);
    expect(listed()[0]).toBe('101 (new)');
    expect(rowsNow[0]).toHaveClass('admin-row-new');
    expect(screen.queryByRole('rowheader', { name: '51' })).toBeNull(); // the oldest left page 1
    expect(screen.getByRole('navigation', { name: 'Pages' })).toHaveTextContent('Page 1 of 2');
    // The same frame again (or a read that had it already) adds nothing.
    socket.push(trade({ kind: 'opened', contract: row(101, { symbol: 'ETHUSDT' }) }));
    expect(screen.getAllByRole('rowheader', { name: /^101\b/ })).toHaveLength(1);
  });

  it('adds only contracts that match the filters, and none on later pages', async () => {
    rows = [row(1, { symbol: 'ETHUSDT' })];
    const { socket, user } = await openLive();
    await user.type(screen.getByLabelText('Product'), 'ethusdt');
    await user.click(screen.getByRole('button', { name: 'Apply' }));
    await waitFor(() => expect(api.calls.at(-1)?.url.searchParams.get('symbol')).toBe('ETHUSDT'));
    await screen.findByRole('rowheader', { name: '1' });
    socket.push(trade({ kind: 'opened', contract: row(2, { symbol: 'BTCUSDT' }) }));
    socket.push(trade({ kind: 'opened', contract: row(3, { symbol: 'ETHUSDT', account: 'demo' }) }));
    expect(listed()).toEqual(['3 (new)', '1']);

    await user.selectOptions(screen.getByLabelText('State'), 'settled');
    await user.click(screen.getByRole('button', { name: 'Apply' }));
    await waitFor(() => expect(api.calls.at(-1)?.url.searchParams.get('status')).toBe('settled'));
    await screen.findByRole('table');
    const before = bodyRows().length;
    socket.push(trade({ kind: 'opened', contract: row(4, { symbol: 'ETHUSDT' }) })); // waiting, not settled
    expect(bodyRows()).toHaveLength(before);
  });

  it('leaves a later page as it is when a contract opens', async () => {
    rows = Array.from({ length: 60 }, (_, i) => row(60 - i));
    const { socket, user } = await openLive();
    await user.click(screen.getByRole('button', { name: 'Next' }));
    await screen.findByRole('rowheader', { name: '10' });
    socket.push(trade({ kind: 'opened', contract: row(61) }));
    expect(screen.queryByRole('rowheader', { name: /^61\b/ })).toBeNull();
    expect(bodyRows()).toHaveLength(10);
  });

  it('changes a row in place when its contract enters and settles', async () => {
    rows = [row(9), row(8)];
    const { socket } = await openLive();
    expect(rowOf(8)).toHaveTextContent('— → —');
    expect(rowOf(8)).toHaveTextContent('waiting');
    socket.push(trade({ kind: 'entered', entered: { id: 8, user: 7, entry: { price: '100.50', time: Date.now(), index: 31 }, expiryAt: Date.now() + 60_000 } }));
    expect(rowOf(8)).toHaveTextContent('100.50 → —');
    expect(rowOf(8)).toHaveTextContent('open');
    socket.push(trade({ kind: 'settled', contract: row(8, { status: 'settled', entry: { price: '100.50', time: 1, sequence: 31 }, exit: { price: '101.00', time: 2, sequence: 40 }, outcome: 'win', profit: '8.50', credited: '18.50' }) }));
    expect(rowOf(8)).toHaveTextContent('100.50 → 101.00');
    expect(rowOf(8)).toHaveTextContent('Win +8.50');
    // A late entry never undoes a settlement.
    socket.push(trade({ kind: 'entered', entered: { id: 8, user: 7, entry: { price: '99', time: 1, index: 1 }, expiryAt: 1 } }));
    expect(rowOf(8)).toHaveTextContent('Win +8.50');
    expect(listed()).toEqual(['9', '8']);
  });

  it('after a reconnect it authenticates again and reads the list again, never trusting it missed nothing', async () => {
    rows = [row(5)];
    const { socket } = await openLive();
    const reads = api.count('GET /api/admin/trades');
    vi.useFakeTimers();
    socket.drop();
    expect(screen.getByText('Live updates lost, reconnecting (1/5)…')).toBeInTheDocument();
    // While the line is down the contract settles and another opens: no frame says so.
    rows = [row(6), row(5, { status: 'settled', outcome: 'loss', profit: '-10', exit: { price: '1', time: 1, sequence: 2 } })];
    vi.advanceTimersByTime(RECONNECT_DELAY_MS);
    vi.useRealTimers();
    const again = lastSocket();
    expect(again).not.toBe(socket);
    again.open();
    expect(again.ops('adminAuth')).toEqual([{ op: 'adminAuth', id: 'auth', token: 'admin-token' }]);
    again.push({ type: 'adminAuthenticated', id: 'auth', data: { admin: 1 } });
    await waitFor(() => expect(api.count('GET /api/admin/trades')).toBe(reads + 1));
    await waitFor(() => expect(rowOf(5)).toHaveTextContent('Loss'));
    expect(screen.getByRole('rowheader', { name: '6' })).toBeInTheDocument();
    expect(screen.getByText('Live: new trades appear as they happen')).toBeInTheDocument();
  });

  it('applies frames that arrive during a read on top of its answer', async () => {
    rows = [row(5)];
    let answer: (() => void) | null = null;
    const { socket } = await openLive();
    // The next read is answered only when the test says so.
    api.fetch.mockImplementationOnce(
      () =>
        new Promise<Response>((resolve) => {
          answer = () => resolve(new Response(JSON.stringify({ success: true, data: { items: [row(5)], total: 1 }, message: 'OK' }), { status: 200 }));
        }),
    );
    socket.push({ type: 'adminAuthenticated', id: 'auth', data: { admin: 1 } }); // as after a reconnect
    await waitFor(() => expect(answer).not.toBeNull());
    socket.push(trade({ kind: 'opened', contract: row(7) }));
    answer!();
    await waitFor(() => expect(listed()).toEqual(['7 (new)', '5']));
  });

  it('stops and ends the admin session when the server ends it', async () => {
    rows = [row(5)];
    const { socket } = await openLive();
    socket.drop(4001);
    expect(useAdminSession.getState()).toMatchObject({ token: null, expired: true });
    expect(FakeSocket.all).toHaveLength(1);
  });

  it('says when the attempts ran out and tries again on request', async () => {
    rows = [row(5)];
    const { socket, user } = await openLive();
    vi.useFakeTimers();
    socket.drop();
    for (let attempt = 1; attempt <= 5; attempt += 1) {
      vi.advanceTimersByTime(RECONNECT_DELAY_MS);
      lastSocket().drop();
    }
    vi.useRealTimers();
    expect(screen.getByText('Live updates stopped: the list may be out of date')).toBeInTheDocument();
    const sockets = FakeSocket.all.length;
    await user.click(screen.getByRole('button', { name: 'Retry live updates' }));
    expect(FakeSocket.all).toHaveLength(sockets + 1);
  });
});
