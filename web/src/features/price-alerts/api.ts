/** The user's price alerts: waiting ones from the engine, fired ones from history. */
import { api } from '@/lib/api';
import type { Page } from '@/lib/api-client';
import type { MarketItem, PriceAlert, Schemas } from '@/types/api';

export type { PriceAlert };

/** The waiting alerts, and `max`: the most alerts waiting at once. */
export type AlertsAnswer = Schemas['AlertsAnswer'];

export const alertsApi = {
  list: () => api.get<AlertsAnswer>('/user/price-alerts'),
  set: (symbol: string, price: string) => api.post<PriceAlert>('/user/price-alerts', { symbol, price }),
  cancel: (id: number) => api.delete<Schemas['Empty']>(`/user/price-alerts/${id}`),
  fired: (page: number, pageSize: number) => api.get<Page<PriceAlert>>('/user/price-alerts/fired', { query: { page, pageSize } }),
  /** The products to choose from (the account page's form). */
  markets: () => api.get<MarketItem[]>('/markets'),
};
