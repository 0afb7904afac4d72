/**
 * The one websocket of the app (`/ws`, protocol in ARCHITECTURE.md).
 *
 * - Subscriptions are counted by reference: the first listener of a topic subscribes, the
 *   last one to leave unsubscribes. A new listener of a live topic gets its latest value at
 *   once, as the server gives a new subscriber its snapshot.
 * - After any reconnect every topic is subscribed again, the token re-sent, and `resync`
 *   listeners run so stores refill balances and open contracts over HTTP. Orders are never
 *   sent here: an order in flight when the line drops is checked in the contract list.
 * - Reconnects: 5 attempts 5000 ms apart, then `failed` ("Maximum reconnection attempts
 *   reached") until `retry()`. The browser's `offline` stops trying; `online` starts again.
 * - `serverNow()` is the server's clock, estimated from ping/pong round trips, so countdowns
 *   do not depend on the device's clock.
 * - The same client serves the back-office (lib/admin-ws.ts): only the authentication differs
 *   (`adminAuth` with the admin's token, answered `adminAuthenticated`), given as `auth`.
 */

export const RECONNECT_DELAY_MS = 5_000;
export const RECONNECT_ATTEMPTS_MAX = 5;
/** How often the clock offset is re-measured. */
export const CLOCK_PING_INTERVAL_MS = 30_000;
/** Round-trip samples kept; the fastest one gives the offset. */
const CLOCK_SAMPLES_MAX = 5;
/** Close codes of the server (ARCHITECTURE.md): resync, session ended, heartbeat. */
export const CLOSE_RESYNC = 4000;
export const CLOSE_SESSION_ENDED = 4001;

/** The websocket's address: `/ws` on this host, with the language the server answers in. */
export function socketUrl(language: string): string {
  const scheme = window.location.protocol === 'https:' ? 'wss' : 'ws';
  return `${scheme}://${window.location.host}/ws?language=${encodeURIComponent(language)}`;
}

export type ConnectionState = 'idle' | 'connecting' | 'open' | 'reconnecting' | 'failed' | 'offline';

export interface ConnectionStatus {
  state: ConnectionState;
  /** The reconnection attempt under way (1..5), 0 when none. */
  attempt: number;
  maxAttempts: number;
  /** Whether the server accepted the token on this connection. */
  authenticated: boolean;
}

export type Topic =
  | { channel: 'tickers' }
  | { channel: 'ticks'; symbol: string }
  | { channel: 'candles'; symbol: string; period: string }
  /** One tournament's standings: `tournament.standing`, `tournament.changed`, `tournament.finished`. */
  | { channel: 'tournament'; tournament: number };

/** A frame from the server: `{type, id?, data}`. */
export interface ServerFrame<T = unknown> {
  type: string;
  id?: string | number;
  data: T;
}

type Listener<T = unknown> = (frame: ServerFrame<T>) => void;

/** Events of the client itself, beside the server's frame types. */
export type ClientEvent = 'resync' | 'session-ended' | 'auth-failed';

export function topicKey(topic: Topic): string {
  switch (topic.channel) {
    case 'tickers':
      return 'tickers';
    case 'ticks':
      return `ticks:${topic.symbol}`;
    case 'candles':
      return `candles:${topic.symbol}:${topic.period}`;
    case 'tournament':
      return `tournament:${topic.tournament}`;
  }
}

/** The topic a market-data frame belongs to, or null for private frames. */
function frameTopic(frame: ServerFrame): string | null {
  const data = frame.data as { symbol?: string; period?: string; tournament?: number } | null;
  switch (frame.type) {
    case 'tournament.standing':
    case 'tournament.changed':
    case 'tournament.finished':
      return data?.tournament ? `tournament:${data.tournament}` : null;
    case 'tickers':
    case 'ticker':
      return 'tickers';
    case 'tick':
      return data?.symbol ? `ticks:${data.symbol}` : null;
    case 'candle':
      return data?.symbol && data.period ? `candles:${data.symbol}:${data.period}` : null;
    default:
      return null;
  }
}

interface TickerLine {
  symbol: string;
}

interface Subscription {
  topic: Topic;
  listeners: Set<Listener>;
  /** The latest frame (ticks, candles), replayed to a late listener. */
  last: ServerFrame | null;
  /** Tickers: the latest line of every product, replayed as one `tickers` snapshot. */
  lines: Map<string, TickerLine> | null;
}

/** How a connection authenticates: the op sent with the token, and the frame type of success. */
export interface WsAuth {
  op: string;
  authenticated: string;
}

/** The trader's authentication: `{op:"auth", token}`, answered `authenticated`. */
export const USER_AUTH: WsAuth = { op: 'auth', authenticated: 'authenticated' };

export interface WsClientOptions {
  url: () => string;
  WebSocketImpl?: typeof WebSocket;
  now?: () => number;
  /** The trader's `auth` unless given (the back-office: `adminAuth`). */
  auth?: WsAuth;
}

export class WsClient {
  private readonly options: WsClientOptions;
  private socket: WebSocket | null = null;
  private readonly subscriptions = new Map<string, Subscription>();
  private readonly frameListeners = new Map<string, Set<Listener>>();
  private readonly statusListeners = new Set<() => void>();
  private status: ConnectionStatus = {
    state: 'idle',
    attempt: 0,
    maxAttempts: RECONNECT_ATTEMPTS_MAX,
    authenticated: false,
  };
  private token: string | null = null;
  private reconnectTimer: ReturnType<typeof setTimeout> | null = null;
  private clockTimer: ReturnType<typeof setInterval> | null = null;
  private everOpened = false;
  private pingSeq = 0;
  private readonly pings = new Map<string, number>();
  private clockSamples: Array<{ rtt: number; offset: number }> = [];
  private offsetMs = 0;

  constructor(options: WsClientOptions) {
    this.options = options;
  }

  // ----- state -------------------------------------------------------------------------

  getStatus = (): ConnectionStatus => this.status;

  onStatus = (listener: () => void): (() => void) => {
    this.statusListeners.add(listener);
    return () => this.statusListeners.delete(listener);
  };

  private setStatus(patch: Partial<ConnectionStatus>): void {
    this.status = { ...this.status, ...patch };
    for (const listener of this.statusListeners) listener();
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }

  /** The server's clock in ms since the epoch. */
  serverNow(): number {
    return this.now() + this.offsetMs;
  }

  // ----- connection ----------------------------------------------------------------------

  /** Opens the socket if it is not open or opening. */
  connect(): void {
    if (this.socket || this.status.state === 'offline') return;
    this.clearReconnect();
    const Impl = this.options.WebSocketImpl ?? WebSocket;
    const reconnecting = this.status.attempt > 0;
    this.setStatus({ state: reconnecting ? 'reconnecting' : 'connecting', authenticated: false });
    let socket: WebSocket;
    try {
      socket = new Impl(this.options.url());
    } catch {
      this.scheduleReconnect();
      return;
    }
    this.socket = socket;
    socket.onopen = () => this.handleOpen(socket);
    socket.onmessage = (event: MessageEvent) => this.handleMessage(socket, event);
    socket.onclose = (event: CloseEvent) => this.handleClose(socket, event);
  }

  /** Tries again after the attempts ran out (the retry button). */
  retry(): void {
    this.clearReconnect();
    this.setStatus({ attempt: 0 });
    if (this.status.state === 'offline') this.setStatus({ state: 'idle' });
    this.dropSocket();
    this.connect();
  }

  /** Closes for good (tests, sign-out of the whole app). */
  disconnect(): void {
    this.clearReconnect();
    this.dropSocket();
    this.setStatus({ state: 'idle', attempt: 0, authenticated: false });
  }

  /** The browser went offline: stop trying until it is back. */
  goOffline(): void {
    this.clearReconnect();
    this.dropSocket();
    this.setStatus({ state: 'offline', attempt: 0, authenticated: false });
  }

  /** The browser is back online: connect at once with a fresh set of attempts. */
  goOnline(): void {
    if (this.status.state !== 'offline') return;
    this.setStatus({ state: 'idle', attempt: 0 });
    this.connect();
  }

  /** Listens to the browser's online/offline events; returns the detach function. */
  attachBrowserEvents(target: Window): () => void {
    const offline = () => this.goOffline();
    const online = () => this.goOnline();
    target.addEventListener('offline', offline);
    target.addEventListener('online', online);
    return () => {
      target.removeEventListener('offline', offline);
      target.removeEventListener('online', online);
    };
  }

  /**
   * The user's token: sent now if the socket is open, and on every (re)connect. Clearing it
   * reconnects, since a connection's authentication cannot be taken back.
   */
  setToken(token: string | null): void {
    if (token === this.token) return;
    const hadToken = this.token !== null;
    this.token = token;
    if (token && this.isOpen()) {
      this.sendAuth();
    } else if (!token && hadToken && this.socket) {
      this.dropSocket();
      this.setStatus({ attempt: 0, authenticated: false });
      this.connect();
    }
  }

  private isOpen(): boolean {
    return this.socket !== null && this.status.state === 'open';
  }

  private dropSocket(): void {
    const socket = this.socket;
    this.socket = null;
    this.stopClock();
    if (socket) {
      socket.onopen = null;
      socket.onmessage = null;
      socket.onclose = null;
      try {
        socket.close(1000);
      } catch {
        // Already closing.
      }
    }
  }

  private clearReconnect(): void {
    if (this.reconnectTimer !== null) {
      clearTimeout(this.reconnectTimer);
      this.reconnectTimer = null;
    }
  }

  private scheduleReconnect(): void {
    this.socket = null;
    this.stopClock();
    if (this.status.attempt >= RECONNECT_ATTEMPTS_MAX) {
      this.setStatus({ state: 'failed', authenticated: false });
      return;
    }
    this.setStatus({ state: 'reconnecting', attempt: this.status.attempt + 1, authenticated: false });
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      this.connect();
    }, RECONNECT_DELAY_MS);
  }

  private handleOpen(socket: WebSocket): void {
    if (socket !== this.socket) return;
    const resync = this.everOpened;
    this.everOpened = true;
    this.setStatus({ state: 'open', attempt: 0 });
    if (this.token) this.sendAuth();
    for (const subscription of this.subscriptions.values()) {
      this.send({ op: 'subscribe', ...subscription.topic });
    }
    this.startClock();
    if (resync) this.emit('resync', { type: 'resync', data: null });
  }

  private handleClose(socket: WebSocket, event: CloseEvent): void {
    if (socket !== this.socket) return;
    this.socket = null;
    if (event.code === CLOSE_SESSION_ENDED) {
      this.emit('session-ended', { type: 'session-ended', data: null });
      // A listener closed the client for good (the back-office: no session, nothing to show).
      if (this.status.state === 'idle') return;
    }
    this.scheduleReconnect();
  }

  private send(message: Record<string, unknown>): void {
    if (this.socket && this.socket.readyState === 1) this.socket.send(JSON.stringify(message));
  }

  private sendAuth(): void {
    this.send({ op: (this.options.auth ?? USER_AUTH).op, id: 'auth', token: this.token });
  }

  // ----- clock ---------------------------------------------------------------------------

  private startClock(): void {
    this.stopClock();
    this.ping();
    this.clockTimer = setInterval(() => this.ping(), CLOCK_PING_INTERVAL_MS);
  }

  private stopClock(): void {
    if (this.clockTimer !== null) {
      clearInterval(this.clockTimer);
      this.clockTimer = null;
    }
    this.pings.clear();
  }

  private ping(): void {
    const id = `clock-${++this.pingSeq}`;
    this.pings.set(id, this.now());
    this.send({ op: 'ping', id });
  }

  private handlePong(frame: ServerFrame): void {
    const sent = typeof frame.id === 'string' ? this.pings.get(frame.id) : undefined;
    const serverTime = (frame.data as { time?: unknown } | null)?.time;
    if (sent === undefined || typeof serverTime !== 'number') return;
    this.pings.delete(frame.id as string);
    const received = this.now();
    const rtt = received - sent;
    this.clockSamples = [...this.clockSamples, { rtt, offset: serverTime - (sent + rtt / 2) }].slice(-CLOCK_SAMPLES_MAX);
    const best = this.clockSamples.reduce((a, b) => (b.rtt < a.rtt ? b : a));
    this.offsetMs = best.offset;
  }

  // ----- frames --------------------------------------------------------------------------

  private handleMessage(socket: WebSocket, event: MessageEvent): void {
    if (socket !== this.socket || typeof event.data !== 'string') return;
    let frame: ServerFrame;
    try {
      frame = JSON.parse(event.data) as ServerFrame;
    } catch {
      return;
    }
    if (!frame || typeof frame.type !== 'string') return;
    if (frame.type === 'pong') {
      this.handlePong(frame);
      return;
    }
    if (frame.type === (this.options.auth ?? USER_AUTH).authenticated) {
      this.setStatus({ authenticated: true });
    } else if (frame.type === 'error' && frame.id === 'auth') {
      this.emit('auth-failed', frame);
    }
    const key = frameTopic(frame);
    if (key) {
      const subscription = this.subscriptions.get(key);
      if (!subscription) return;
      this.remember(subscription, frame);
      for (const listener of subscription.listeners) listener(frame);
      return;
    }
    this.emit(frame.type, frame);
  }

  private remember(subscription: Subscription, frame: ServerFrame): void {
    if (subscription.lines) {
      const lines = frame.type === 'tickers' ? (frame.data as TickerLine[]) : [frame.data as TickerLine];
      for (const line of lines) if (line?.symbol) subscription.lines.set(line.symbol, line);
    } else {
      subscription.last = frame;
    }
  }

  private emit(type: string, frame: ServerFrame): void {
    const listeners = this.frameListeners.get(type);
    if (listeners) for (const listener of [...listeners]) listener(frame);
  }

  // ----- subscriptions -------------------------------------------------------------------

  /** Listens to a market-data topic; the returned function stops listening. */
  subscribe<T = unknown>(topic: Topic, listener: Listener<T>): () => void {
    const key = topicKey(topic);
    let subscription = this.subscriptions.get(key);
    if (!subscription) {
      subscription = {
        topic,
        listeners: new Set(),
        last: null,
        lines: topic.channel === 'tickers' ? new Map() : null,
      };
      this.subscriptions.set(key, subscription);
      this.send({ op: 'subscribe', ...topic });
    } else if (subscription.lines && subscription.lines.size > 0) {
      listener({ type: 'tickers', data: [...subscription.lines.values()] as T });
    } else if (subscription.last) {
      listener(subscription.last as ServerFrame<T>);
    }
    const entry = subscription;
    entry.listeners.add(listener as Listener);
    return () => {
      entry.listeners.delete(listener as Listener);
      if (entry.listeners.size === 0 && this.subscriptions.get(key) === entry) {
        this.subscriptions.delete(key);
        this.send({ op: 'unsubscribe', ...topic });
      }
    };
  }

  /** Listens to private frames (`order.settled`, `balance`, ...) or client events. */
  on<T = unknown>(type: string | ClientEvent, listener: Listener<T>): () => void {
    let listeners = this.frameListeners.get(type);
    if (!listeners) {
      listeners = new Set();
      this.frameListeners.set(type, listeners);
    }
    listeners.add(listener as Listener);
    return () => listeners.delete(listener as Listener);
  }

  /** How many topics are subscribed (for tests and the status line). */
  topicCount(): number {
    return this.subscriptions.size;
  }
}
