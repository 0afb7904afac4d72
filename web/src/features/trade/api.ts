/** Markets, candles, rules, orders and contracts for the trade screen. */
import { api } from '@/lib/api';
import type { Page } from '@/lib/api-client';
import type { AccountKind, ContractRow, MarketItem, Schemas } from '@/types/api';

export type { ContractRow, MarketItem };

/** A candle as the API sends it (decimal strings, time in ms); the websocket's `candle` frame has these fields too. */
export type CandleData = Schemas['CandleView'];

/** A published trading rule: one per duration (seconds). */
export type Rule = Schemas['RuleView'];

/** Candles per chart request: enough to fill a wide screen. */
export const CANDLES_PER_CHART = 500;

export const tradeApi = {
  market: (symbol: string) => api.get<MarketItem>(`/markets/${encodeURIComponent(symbol)}`),
  candles: (symbol: string, period: string, signal?: AbortSignal) =>
    api.get<CandleData[]>(`/markets/${encodeURIComponent(symbol)}/candles`, { query: { period, limit: CANDLES_PER_CHART }, signal }),
  rules: () => api.get<Schemas['Rules']>('/trade/rules'),
  placeOrder: (body: { symbol: string; direction: 'up' | 'down'; amount: string; duration: number; account: AccountKind }) =>
    api.post<Schemas['OrderAccepted']>('/trade/orders', body),
  openContracts: () => api.get<Page<ContractRow>>('/trade/contracts', { query: { status: 'open', pageSize: 100 } }),
  contract: (id: number) => api.get<ContractRow>(`/trade/contracts/${id}`),
};
