/** The user's price alerts: waiting ones from the engine, fired ones from history. */
import { api } from '@/lib/api';
import type { Page } from '@/lib/api-client';
import type { MarketItem } from '@/types/api';

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

export interface AlertsAnswer {
  waiting: PriceAlert[];
  /** Most alerts waiting at once. */
  max: number;
}

export const alertsApi = {
  list: () => api.get<AlertsAnswer>('/user/price-alerts'),
  set: (symbol: string, price: string) => api.post<PriceAlert>('/user/price-alerts', { symbol, price }),
  cancel: (id: number) => api.delete<Record<string, never>>(`/user/price-alerts/${id}`),
  fired: (page: number, pageSize: number) => api.get<Page<PriceAlert>>('/user/price-alerts/fired', { query: { page, pageSize } }),
  /** The products to choose from (the account page's form). */
  markets: () => api.get<MarketItem[]>('/markets'),
};
