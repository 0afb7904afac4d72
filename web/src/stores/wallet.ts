/**
 * The user's two wallets (decisions §3: real and demo) and which one the header's switch
 * has chosen. Loaded over HTTP at sign-in, after every reconnect and route change; moved
 * live by the websocket's `balance` frames.
 */
import { create } from 'zustand';

import { api } from '@/lib/api';
import type { BalanceFrame } from '@/lib/ws-frames';
import type { AccountKind, Balance } from '@/types/api';

export type { AccountKind, Balance };

interface WalletState {
  account: AccountKind;
  /** True once the user (or the first load) chose the account. */
  chosen: boolean;
  balances: Record<AccountKind, Balance | null>;
  setAccount(account: AccountKind): void;
  load(): Promise<void>;
  applyFrame(frame: BalanceFrame): void;
  clear(): void;
}

/** True for a decimal string above zero ("0.00" is not), without a decimal library. */
export function isAboveZero(value: string): boolean {
  return /^\+?\d*\.?\d+$/.test(value.trim()) && /[1-9]/.test(value);
}

const EMPTY: Record<AccountKind, Balance | null> = { real: null, demo: null };

export const useWallet = create<WalletState>()((set, get) => ({
  account: 'real',
  chosen: false,
  balances: EMPTY,
  setAccount(account) {
    set({ account, chosen: true });
  },
  async load() {
    const [real, demo] = await Promise.all([
      api.get<Balance>('/wallet/balance', { query: { account: 'real' } }),
      api.get<Balance>('/wallet/balance', { query: { account: 'demo' } }),
    ]);
    const patch: Partial<WalletState> = { balances: { real, demo } };
    // A new user has no real money yet: start on the demo account, as peers do.
    if (!get().chosen) Object.assign(patch, { account: isAboveZero(real.total) ? 'real' : 'demo', chosen: true });
    set(patch);
  },
  applyFrame(frame) {
    const current = get().balances[frame.account];
    const next: Balance = {
      account: frame.account,
      total: frame.balance,
      available: frame.available,
      inPosition: frame.inPosition,
      frozen: frame.frozen,
      change24h: current?.change24h ?? '0',
      change24hPercent: current?.change24hPercent ?? '0',
    };
    set({ balances: { ...get().balances, [frame.account]: next } });
  },
  clear() {
    set({ balances: EMPTY, chosen: false, account: 'real' });
  },
}));
