/** Tells the pending badges to poll now: an order was just handled, so a count fell. */
import { create } from 'zustand';

interface RefreshState {
  handled: number;
  orderHandled(): void;
}

export const usePendingRefresh = create<RefreshState>()((set) => ({
  handled: 0,
  orderHandled: () => set((s) => ({ handled: s.handled + 1 })),
}));
