/** The market list (spec §3 market item) over HTTP; live lines come from the websocket. */
import { api } from '@/lib/api';
import type { MarketItem } from '@/types/api';

export type { MarketItem };

export const getMarkets = () => api.get<MarketItem[]>('/markets');
