/** The market list (spec §3 market item) over HTTP; live lines come from the websocket. */
import { api } from '@/lib/api';

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
}

export const getMarkets = () => api.get<MarketItem[]>('/markets');
