import { afterEach, beforeEach, vi } from 'vitest';

import { CLOSE_SESSION_ENDED, RECONNECT_ATTEMPTS_MAX, RECONNECT_DELAY_MS, type WsAuth, WsClient } from './ws-client';

/** A stand-in socket: records what the client sends; the test opens, feeds and closes it. */
class FakeSocket {
  static all: FakeSocket[] = [];
  readyState = 0;
  sent: Array<Record<string, unknown>> = [];
  onopen: (() => void) | null = null;
  onmessage: ((e: { data: string }) => void) | null = null;
  onclose: ((e: { code: number }) => void) | null = null;
  closedByClient = false;

  constructor(readonly url: string) {
    FakeSocket.all.push(this);
  }
  send(text: string) {
    this.sent.push(JSON.parse(text) as Record<string, unknown>);
  }
  close() {
    this.closedByClient = true;
    this.readyState = 3;
  }
  // Test side.
  open() {
    this.readyState = 1;
    this.onopen?.();
  }
  push(frame: unknown) {
    this.onmessage?.({ data: JSON.stringify(frame) });
  }
  drop(code = 1006) {
    this.readyState = 3;
    this.onclose?.({ code });
  }
  ops(op: string) {
    return this.sent.filter((m) => m.op === op);
  }
}

function latest(): FakeSocket {
  const socket = FakeSocket.all[FakeSocket.all.length - 1];
  if (!socket) throw new Error('no socket yet');
  return socket;
}

let clock = 1_000_000;
function client(auth?: WsAuth) {
  return new WsClient({
    url: () => 'ws://test/ws',
    WebSocketImpl: FakeSocket as unknown as typeof WebSocket,
    now: () => clock,
    auth,
  });
}

beforeEach(() => {
  FakeSocket.all = [];
  vi.useFakeTimers();
});

afterEach(() => {
  vi.useRealTimers();
});

describe('reconnect policy', () => {
  test('5 attempts 5000 ms apart, then failed until retry', () => {
    const ws = client();
    ws.connect();
    latest().open();
    expect(ws.getStatus().state).toBe('open');

    latest().drop();
    for (let attempt = 1; attempt <= RECONNECT_ATTEMPTS_MAX; attempt += 1) {
      expect(ws.getStatus()).toMatchObject({ state: 'reconnecting', attempt });
      const sockets = FakeSocket.all.length;
      vi.advanceTimersByTime(RECONNECT_DELAY_MS - 1);
      expect(FakeSocket.all.length).toBe(sockets); // not a moment early
      vi.advanceTimersByTime(1);
      expect(FakeSocket.all.length).toBe(sockets + 1);
      latest().drop(); // the server is still down
    }
    expect(ws.getStatus().state).toBe('failed');
    vi.advanceTimersByTime(60_000);
    expect(FakeSocket.all.length).toBe(1 + RECONNECT_ATTEMPTS_MAX); // it stopped trying

    ws.retry();
    expect(FakeSocket.all.length).toBe(2 + RECONNECT_ATTEMPTS_MAX);
    latest().open();
    expect(ws.getStatus()).toMatchObject({ state: 'open', attempt: 0 });
  });

  test('a successful reconnect starts the count again', () => {
    const ws = client();
    ws.connect();
    latest().open();
    latest().drop();
    vi.advanceTimersByTime(RECONNECT_DELAY_MS);
    latest().open();
    latest().drop();
    expect(ws.getStatus()).toMatchObject({ state: 'reconnecting', attempt: 1 });
  });

  test('offline stops trying; online connects at once', () => {
    const ws = client();
    ws.connect();
    latest().open();
    ws.goOffline();
    expect(ws.getStatus().state).toBe('offline');
    expect(latest().closedByClient).toBe(true);
    vi.advanceTimersByTime(60_000);
    expect(FakeSocket.all.length).toBe(1);
    ws.goOnline();
    expect(FakeSocket.all.length).toBe(2);
    latest().open();
    expect(ws.getStatus().state).toBe('open');
  });

  test('the browser events drive offline and online', () => {
    const ws = client();
    const detach = ws.attachBrowserEvents(window);
    ws.connect();
    latest().open();
    window.dispatchEvent(new Event('offline'));
    expect(ws.getStatus().state).toBe('offline');
    window.dispatchEvent(new Event('online'));
    expect(ws.getStatus().state).toBe('connecting');
    detach();
  });
});

describe('subscriptions', () => {
  test('counted by reference: one subscribe for two listeners, unsubscribe after the last', () => {
    const ws = client();
    ws.connect();
    latest().open();
    const a = vi.fn();
    const b = vi.fn();
    const offA = ws.subscribe({ channel: 'ticks', symbol: 'BTCUSDT' }, a);
    const offB = ws.subscribe({ channel: 'ticks', symbol: 'BTCUSDT' }, b);
    expect(latest().ops('subscribe')).toEqual([{ op: 'subscribe', channel: 'ticks', symbol: 'BTCUSDT' }]);
    latest().push({ type: 'tick', data: { symbol: 'BTCUSDT', price: '1', time: 1, index: 1 } });
    latest().push({ type: 'tick', data: { symbol: 'ETHUSDT', price: '2', time: 1, index: 2 } });
    expect(a).toHaveBeenCalledTimes(1);
    expect(b).toHaveBeenCalledTimes(1);
    offA();
    expect(latest().ops('unsubscribe')).toEqual([]);
    offB();
    expect(latest().ops('unsubscribe')).toEqual([{ op: 'unsubscribe', channel: 'ticks', symbol: 'BTCUSDT' }]);
  });

  test('a late listener gets the latest value at once (the tickers as one snapshot)', () => {
    const ws = client();
    ws.connect();
    latest().open();
    ws.subscribe({ channel: 'tickers' }, () => undefined);
    latest().push({ type: 'tickers', data: [{ symbol: 'BTCUSDT', price: '1' }, { symbol: 'ETHUSDT', price: '2' }] });
    latest().push({ type: 'ticker', data: { symbol: 'BTCUSDT', price: '3' } });
    const late = vi.fn();
    ws.subscribe({ channel: 'tickers' }, late);
    expect(late).toHaveBeenCalledWith({
      type: 'tickers',
      data: [
        { symbol: 'BTCUSDT', price: '3' },
        { symbol: 'ETHUSDT', price: '2' },
      ],
    });
  });

  test('after a reconnect: auth again, every topic again, and a resync; never an order', () => {
    const ws = client();
    ws.setToken('token-1');
    ws.connect();
    latest().open();
    expect(latest().ops('auth')).toEqual([{ op: 'auth', id: 'auth', token: 'token-1' }]);
    const resync = vi.fn();
    ws.on('resync', resync);
    ws.subscribe({ channel: 'candles', symbol: 'BTCUSDT', period: '1m' }, () => undefined);
    ws.subscribe({ channel: 'tickers' }, () => undefined);
    expect(resync).not.toHaveBeenCalled();

    latest().drop();
    vi.advanceTimersByTime(RECONNECT_DELAY_MS);
    latest().open();
    expect(latest().ops('auth')).toHaveLength(1);
    expect(latest().ops('subscribe')).toEqual([
      { op: 'subscribe', channel: 'candles', symbol: 'BTCUSDT', period: '1m' },
      { op: 'subscribe', channel: 'tickers' },
    ]);
    expect(resync).toHaveBeenCalledTimes(1);
    expect(FakeSocket.all.flatMap((s) => s.ops('order'))).toEqual([]);
  });

  test('private frames go to their listeners; a closed session is reported', () => {
    const ws = client();
    ws.connect();
    latest().open();
    const settled = vi.fn();
    const ended = vi.fn();
    ws.on('order.settled', settled);
    ws.on('session-ended', ended);
    latest().push({ type: 'order.settled', data: { contractId: 7 } });
    expect(settled).toHaveBeenCalledWith({ type: 'order.settled', data: { contractId: 7 } });
    latest().drop(CLOSE_SESSION_ENDED);
    expect(ended).toHaveBeenCalledTimes(1);
  });

  test('clearing the token reconnects without it', () => {
    const ws = client();
    ws.setToken('token-1');
    ws.connect();
    latest().open();
    ws.setToken(null);
    expect(FakeSocket.all[0]!.closedByClient).toBe(true);
    latest().open();
    expect(latest().ops('auth')).toEqual([]);
  });
});

describe('the back-office instance', () => {
  const ADMIN = { op: 'adminAuth', authenticated: 'adminAuthenticated' };

  test('authenticates with adminAuth on every (re)connect and says when the server accepted it', () => {
    const ws = client(ADMIN);
    ws.setToken('admin-token');
    const accepted = vi.fn();
    ws.on('adminAuthenticated', accepted);
    ws.connect();
    latest().open();
    expect(latest().ops('adminAuth')).toEqual([{ op: 'adminAuth', id: 'auth', token: 'admin-token' }]);
    expect(latest().ops('auth')).toEqual([]);
    expect(ws.getStatus().authenticated).toBe(false);
    latest().push({ type: 'adminAuthenticated', id: 'auth', data: { admin: 1 } });
    expect(ws.getStatus().authenticated).toBe(true);
    expect(accepted).toHaveBeenCalledTimes(1);

    latest().drop();
    expect(ws.getStatus()).toMatchObject({ state: 'reconnecting', authenticated: false });
    vi.advanceTimersByTime(RECONNECT_DELAY_MS);
    latest().open();
    expect(latest().ops('adminAuth')).toHaveLength(1);
    latest().push({ type: 'adminAuthenticated', id: 'auth', data: { admin: 1 } });
    expect(accepted).toHaveBeenCalledTimes(2);
  });

  test('a refused token is reported; a listener that closes the client on a session end stops the reconnects', () => {
    const ws = client(ADMIN);
    ws.setToken('admin-token');
    const refused = vi.fn();
    ws.on('auth-failed', refused);
    ws.on('session-ended', () => ws.disconnect());
    ws.connect();
    latest().open();
    latest().push({ type: 'error', id: 'auth', data: { code: 'FORBIDDEN', message: 'Access denied' } });
    expect(refused).toHaveBeenCalledWith(expect.objectContaining({ data: expect.objectContaining({ code: 'FORBIDDEN' }) }));

    latest().drop(CLOSE_SESSION_ENDED);
    expect(ws.getStatus().state).toBe('idle');
    vi.advanceTimersByTime(60_000);
    expect(FakeSocket.all).toHaveLength(1);
  });
});

describe('server clock', () => {
  test('the offset comes from the fastest ping round trip', () => {
    const ws = client();
    ws.connect();
    latest().open();
    const [first] = latest().ops('ping');
    clock += 100; // 100 ms round trip; the server's clock is 5 s ahead at the midpoint
    latest().push({ type: 'pong', id: first!.id, data: { time: clock - 50 + 5_000 } });
    expect(ws.serverNow() - clock).toBe(5_000);

    vi.advanceTimersByTime(30_000);
    const second = latest().ops('ping')[1]!;
    clock += 10; // a faster round trip, with the server 4 s ahead: the better sample wins
    latest().push({ type: 'pong', id: second.id, data: { time: clock - 5 + 4_000 } });
    expect(ws.serverNow() - clock).toBe(4_000);
  });
});
