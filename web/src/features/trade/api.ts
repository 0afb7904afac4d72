/** Markets, candles, rules, orders and contracts for the trade screen. */
import { api } from '@/lib/api';
import type { Page } from '@/lib/api-client';
import type { AccountKind } from '@/stores/wallet';

export interface MarketLine {
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
  isOpen: boolean;
  stale: boolean;
}

/** A candle as the API and the websocket send it (decimal strings, time in ms). */
export interface CandleData {
  time: number;
  open: string;
  high: string;
  low: string;
  close: string;
  volume: string;
}

export interface Rule {
  duration: number;
  payoutRate: string;
  minAmount: string;
  maxAmount: string;
  feeRate: string;
  enabled: boolean;
}

export interface TickRow {
  price: string;
  time: number;
  sequence: number;
}

/** A contract record (read model). */
export interface ContractRow {
  id: number;
  account: AccountKind;
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

/** Candles per chart request: enough to fill a wide screen. */
export const CANDLES_PER_CHART = 500;

export const tradeApi = {
  market: (symbol: string) => api.get<MarketLine>(`/markets/${encodeURIComponent(symbol)}`),
  candles: (symbol: string, period: string, signal?: AbortSignal) =>
    api.get<CandleData[]>(`/markets/${encodeURIComponent(symbol)}/candles`, { query: { period, limit: CANDLES_PER_CHART }, signal }),
  rules: () => api.get<{ rules: Rule[] }>('/trade/rules'),
  placeOrder: (body: { symbol: string; direction: 'up' | 'down'; amount: string; duration: number; account: AccountKind }) =>
    api.post<{ contractId: number; fee: string; status: string }>('/trade/orders', body),
  openContracts: () => api.get<Page<ContractRow>>('/trade/contracts', { query: { status: 'open', pageSize: 100 } }),
  contract: (id: number) => api.get<ContractRow>(`/trade/contracts/${id}`),
};
