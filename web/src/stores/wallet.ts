/**
 * The user's two wallets (decisions §3: real and demo), the balance of the tournament they
 * play now (decisions §11), and which one the header's switch has chosen. Loaded over HTTP at
 * sign-in, after every reconnect and route change; moved live by the websocket's `balance`
 * frames.
 */
import { create } from 'zustand';

import { api } from '@/lib/api';
import type { BalanceFrame } from '@/lib/ws-frames';
import type { AccountKind, Balance } from '@/types/api';

export type { AccountKind, Balance };

/** The wallets that hold money of their own, with bills: real and demo. */
export type WalletKind = Exclude<AccountKind, 'tournament'>;

/**
 * The wallet the money pages (wallet, history, statement) show for the chosen account: a
 * tournament balance has no bills, and its fees and prizes are real money.
 */
export function walletOf(account: AccountKind): WalletKind {
  return account === 'tournament' ? 'real' : account;
}

/** True while the user plays a tournament: its balance is offered as a third account. */
export function playsTournament(balance: Balance | null): boolean {
  return typeof balance?.tournament === 'number';
}

/** The accounts a switch offers: real and demo, and the tournament balance while one is played. */
export function accountsOf(balances: Record<AccountKind, Balance | null>): AccountKind[] {
  return playsTournament(balances.tournament) ? ['real', 'demo', 'tournament'] : ['real', 'demo'];
}

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

const EMPTY: Record<AccountKind, Balance | null> = { real: null, demo: null, tournament: null };

export const useWallet = create<WalletState>()((set, get) => ({
  account: 'real',
  chosen: false,
  balances: EMPTY,
  setAccount(account) {
    set({ account, chosen: true });
  },
  async load() {
    const read = (account: AccountKind) => api.get<Balance>('/wallet/balance', { query: { account } });
    const [real, demo, tournament] = await Promise.all([read('real'), read('demo'), read('tournament')]);
    const patch: Partial<WalletState> = { balances: { real, demo, tournament } };
    // A new user has no real money yet: start on the demo account, as peers do.
    if (!get().chosen) Object.assign(patch, { account: isAboveZero(real.total) ? 'real' : 'demo', chosen: true });
    // The tournament ended (or was never played here): back to real money.
    else if (get().account === 'tournament' && !playsTournament(tournament)) patch.account = 'real';
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
      ...(frame.account === 'tournament' ? { tournament: frame.reference, durations: current?.durations } : {}),
    };
    set({ balances: { ...get().balances, [frame.account]: next } });
  },
  clear() {
    set({ balances: EMPTY, chosen: false, account: 'real' });
  },
}));
