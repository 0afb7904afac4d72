/** Shapes of the server's answers that more than one feature reads (the server's DTOs). */

/** A market list line (spec §3 market item); also the websocket's ticker frame. */
export interface MarketItem {
  symbol: string;
  name: string;
  category: 'crypto' | 'forex';
  precision: number;
  price: string;
  change: string;
  changePercent: string;
  high: string;
  low: string;
  volume: string;
  open: string;
  close: string;
  isOpen: boolean;
  stale: boolean;
  /** Priced by the platform's simulator, not a market: demo money only by default. */
  simulated: boolean;
}

/** A price alert (the alert list, the fired list and the `priceAlert` frame). */
export interface PriceAlert {
  id: number;
  symbol: string;
  /** The price watched for, as a decimal string. */
  price: string;
  /** `above`: fires when the price rises to it; `below`: when it falls to it. */
  direction: 'above' | 'below';
  createdAt: number;
  firedAt: number | null;
  firedPrice: string | null;
  firedSequence: number | null;
}

/** A tick that decided a contract: price, time and log index. */
export interface TickRow {
  price: string;
  time: number;
  sequence: number;
}

/** A contract record (spec §3), with its entry and exit ticks once known. */
export interface ContractRow {
  id: number;
  account: 'real' | 'demo';
  symbol: string;
  direction: 'up' | 'down';
  stake: string;
  fee: string;
  payoutRate: string;
  duration: number;
  acceptedAt: number;
  entry: TickRow | null;
  expiryAt: number | null;
  exit: TickRow | null;
  outcome: string | null;
  credited: string | null;
  profit: string | null;
  settledAt: number | null;
  status: 'waiting_entry' | 'open' | 'settled' | 'void';
}

export type OrderStatus = 'pending' | 'processing' | 'completed' | 'rejected' | 'failed';

/** A deposit (recharge) or withdrawal order, as its owner and the back-office see it. */
export interface MoneyOrder {
  id: number;
  kind: 'deposit' | 'withdraw';
  amount: string;
  fee: string;
  actual: string;
  method: string;
  details: Record<string, string>;
  receipt: string | null;
  status: OrderStatus;
  remark: string;
  createdAt: number;
  completedAt: number | null;
}
