/**
 * The waiting alerts, shared by the trade page's dialog and the account page. The server is
 * the authority: every change is a call, then the list is what the server answered.
 */
import { create } from 'zustand';

import { ApiError } from '@/lib/api-client';

import { type PriceAlert, alertsApi } from '../api';

interface AlertsState {
  waiting: PriceAlert[];
  max: number;
  loaded: boolean;
  load(): Promise<void>;
  add(symbol: string, price: string): Promise<PriceAlert>;
  cancel(id: number): Promise<void>;
  /** A live `priceAlert` frame: the alert fired and is no longer waiting. */
  fired(id: number): void;
}

export const useAlerts = create<AlertsState>()((set, get) => ({
  waiting: [],
  max: 20,
  loaded: false,
  async load() {
    const answer = await alertsApi.list();
    set({ waiting: answer.waiting, max: answer.max, loaded: true });
  },
  async add(symbol, price) {
    const alert = await alertsApi.set(symbol, price);
    if (!get().waiting.some((a) => a.id === alert.id)) set({ waiting: [...get().waiting, alert] });
    return alert;
  },
  async cancel(id) {
    try {
      await alertsApi.cancel(id);
    } catch (error) {
      // Gone already (it fired meanwhile): no longer waiting either way. Anything else failed.
      if (!(error instanceof ApiError && error.code === 'PRICE_ALERT_NOT_FOUND')) throw error;
    }
    set({ waiting: get().waiting.filter((a) => a.id !== id) });
  },
  fired(id) {
    set({ waiting: get().waiting.filter((a) => a.id !== id) });
  },
}));
