/**
 * The `data` of each websocket frame the app reads (`{type, id?, data}`, see ws-client.ts), as
 * the server writes them (gateway/src/ws/protocol.rs). The OpenAPI document does not describe
 * the websocket, so its frames are declared here, once, and every reader imports them; a frame
 * that carries a row of the HTTP API (a market line, a contract, a price alert, a security
 * event, a copy trading note) is that row's generated type.
 *
 * Decimals travel as strings, times in ms since the epoch.
 */
import type { AccountKind, ContractRow, CopyNoteRow, MarketItem, PriceAlert, SecurityRow, TickRow } from '@/types/api';

// ----- market data (subscriptions) -----------------------------------------------------------

/** `ticker`: one product's market-list line, on each of its ticks (`tickers`: all of them, on subscribing). */
export type TickerFrame = MarketItem;

/** `tick`: one tick of a subscribed product. */
export interface TickFrame {
  symbol: string;
  price: string;
  quantity: string;
  /** Sequencer time (ms). */
  time: number;
  /** Log index. */
  index: number;
}

/** `candle`: a candle of a subscribed product and period, open or final. */
export interface CandleFrame {
  symbol: string;
  period: string;
  /** Final (a later bucket began) or still open. */
  closed: boolean;
  /** The bucket's start (ms). */
  time: number;
  open: string;
  high: string;
  low: string;
  close: string;
  volume: string;
}

// ----- answers --------------------------------------------------------------------------------

/** `pong`: the server's clock (ms), answering a `ping`. */
export interface PongFrame {
  time: number;
}

/** `error`: a request refused (`id` names it; `auth` for a token refused). */
export interface ErrorFrame {
  code: string;
  message: string;
  field?: string;
}

// ----- the trader's private stream (after `auth`) ------------------------------------------

/** `order.accepted`: an order the engine accepted, from any of the user's devices. */
export interface AcceptedFrame {
  contractId: number;
  symbol: string;
  account: AccountKind;
  direction: 'up' | 'down';
  amount: string;
  fee: string;
  payoutRate: string;
  /** Seconds. */
  duration: number;
  acceptedAt: number;
  /** The leader's UID when the contract copies their order (copy trading), else null. */
  copiedFrom?: number | null;
}

/** `order.entered`: a contract's entry spot. */
export interface EnteredFrame {
  contractId: number;
  entryPrice: string;
  entryTime: number;
  entryIndex: number;
  expiresAt: number;
}

/** `order.settled`: a contract settled (or voided). */
export interface SettledFrame {
  contractId: number;
  symbol: string;
  account: AccountKind;
  direction: 'up' | 'down';
  /** win, loss, tie, sold (sold back before expiry) or a void reason (`void_...`). */
  outcome: string;
  result: 'profit' | 'loss' | 'even';
  /** The size of the profit or loss (never negative). */
  amount: string;
  /** Signed net result: credited - stake - fee. */
  profit: string;
  /** What was paid into the wallet (for `sold`: the sale's amount). */
  credited: string;
  stake: string;
  entryPrice: string | null;
  exitPrice: string | null;
  exitTime: number | null;
  settledAt: number;
}

/**
 * `order.offer`: an entered open contract's early-close offer (decisions §11) at a tick of its
 * product, pushed at every tick while it is open; the latest frame per contract wins.
 */
export interface OfferFrame {
  contractId: number;
  /** What selling now would pay (USDT), or null when it cannot be sold now. */
  offer: string | null;
  /**
   * Why there is no offer: not_entered, unavailable, near_expiry, stale_market, market_closed,
   * few_ticks, account_frozen, account_limited or no_value; null with an offer.
   */
  reason: string | null;
  /** The tick the offer is priced at (null without an offer). */
  price: string | null;
  tickIndex: number | null;
  tickTime: number | null;
}

/** `balance`: a wallet change with the new balance. */
export interface BalanceFrame {
  account: AccountKind;
  /** `unchanged`: money moved inside the wallet (e.g. a stake). */
  change: 'increase' | 'decrease' | 'unchanged';
  /** Size of the change of the total (never negative). */
  amount: string;
  /** Bill type when the total changed. */
  bill: string | null;
  /** The new total: available + frozen + in position. */
  balance: string;
  available: string;
  frozen: string;
  inPosition: string;
  /** Contract or order that caused it (0 for none); the tournament for a tournament balance. */
  reference: number;
}

/** `notification`: a deposit or withdrawal the back-office decided. */
export interface OrderDecisionFrame {
  kind: 'deposit' | 'withdrawal';
  order: number;
  /** processing (a withdrawal approved, being paid out), completed, rejected or failed. */
  status: 'processing' | 'completed' | 'rejected' | 'failed';
  /** True for processing and completed. */
  approved: boolean;
  remark: string;
}

/** `priceAlert`: one of the user's price alerts was reached (the row the alert lists answer). */
export type PriceAlertFrame = PriceAlert;

/** `security`: an event of the user's security history (the row `GET /api/user/security-events` lists). */
export type SecurityFrame = SecurityRow;

/** `notice`: a system notice, for every user (`lang` empty) or for the app in `lang`. */
export interface NoticeFrame {
  id: number;
  title: string;
  body: string;
  lang: string;
  time: number;
}

/** `noticeWithdrawn`: an admin withdrew the notice. */
export interface NoticeWithdrawnFrame {
  id: number;
}

/**
 * `copy`: a copy link between a follower and a leader started or ended, sent to whichever of
 * them did not do it (nobody is told of their own act); the row `GET /api/copy/notes` keeps for
 * them (`time`: when, ms). To the leader: `started` (someone started copying them) or `ended`
 * without a reason (a follower stopped, or their stop level was reached: a leader is told that
 * a follower stopped, not why). To the follower: `ended` with its `reason`, `by_leader` (the
 * leader removed them), `leader_stopped` (the leader stopped sharing) or `stop_reached` (their
 * available balance was below their stop level when the leader placed an order).
 */
export interface CopyFrame extends CopyNoteRow {
  kind: 'copy';
  change: 'started' | 'ended';
  reason?: 'by_leader' | 'leader_stopped' | 'stop_reached' | null;
}

/**
 * `copy.refused`: the follower's copy of a leader's order was refused (the leader's order
 * stands), sent to the follower only, and kept for them as `GET /api/copy/notes` lists it;
 * `contractId` is the leader's contract, `code` the refusal's error code (INSUFFICIENT_BALANCE,
 * ...).
 */
export interface CopyRefusedFrame extends CopyNoteRow {
  kind: 'copy.refused';
  contractId: number;
  code: string;
}

// ----- the back-office's stream (after `adminAuth`) ----------------------------------------

/**
 * `adminTrade`: one contract's change. `opened` and `settled` carry the whole row (as
 * `GET /api/admin/trades` lists it), `entered` the entry.
 */
export type AdminTradeFrame =
  | { kind: 'opened' | 'settled'; contract: ContractRow }
  | { kind: 'entered'; entered: { id: number; user: number; entry: TickRow; expiryAt: number } };
