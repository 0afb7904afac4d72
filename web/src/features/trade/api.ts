/** Markets, candles, rules, orders and contracts for the trade screen. */
import { api } from '@/lib/api';
import type { Page } from '@/lib/api-client';
import type { ContractRow, MarketItem } from '@/types/api';
import type { AccountKind } from '@/stores/wallet';

export type { ContractRow, MarketItem };

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

/** Candles per chart request: enough to fill a wide screen. */
export const CANDLES_PER_CHART = 500;

export const tradeApi = {
  market: (symbol: string) => api.get<MarketItem>(`/markets/${encodeURIComponent(symbol)}`),
  candles: (symbol: string, period: string, signal?: AbortSignal) =>
    api.get<CandleData[]>(`/markets/${encodeURIComponent(symbol)}/candles`, { query: { period, limit: CANDLES_PER_CHART }, signal }),
  rules: () => api.get<{ rules: Rule[] }>('/trade/rules'),
  placeOrder: (body: { symbol: string; direction: 'up' | 'down'; amount: string; duration: number; account: AccountKind }) =>
    api.post<{ contractId: number; fee: string; status: string }>('/trade/orders', body),
  openContracts: () => api.get<Page<ContractRow>>('/trade/contracts', { query: { status: 'open', pageSize: 100 } }),
  contract: (id: number) => api.get<ContractRow>(`/trade/contracts/${id}`),
};
