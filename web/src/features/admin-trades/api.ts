/** Every user's contracts, and a user's referral team, in the back-office. */
import { adminApi } from '@/lib/admin-api';
import type { Page } from '@/lib/api-client';
import type { ContractRow } from '@/types/api';

export type AdminContract = ContractRow & { user: number };

export interface TradeFilter {
  user: number | null;
  symbol: string | null;
  status: 'open' | 'settled' | null;
  account: 'real' | 'demo' | null;
  start: number | null;
  end: number | null;
}

export const NO_TRADE_FILTER: TradeFilter = { user: null, symbol: null, status: null, account: null, start: null, end: null };
export const TRADES_PAGE_SIZE = 50;

export const fetchTrades = (filter: TradeFilter, page: number, signal?: AbortSignal) =>
  adminApi.get<Page<AdminContract>>('/admin/trades', { query: { ...filter, page, pageSize: TRADES_PAGE_SIZE }, signal });

export interface TeamMember {
  uid: number;
  username: string;
  certified: boolean;
  joinTime: number;
}

export interface Generation {
  generation: number;
  count: number;
  certified: number;
  notCertified: number;
  members: TeamMember[];
}

export const fetchTeam = (uid: number, signal?: AbortSignal) => adminApi.get<Generation[]>(`/admin/teams/${uid}`, { signal });
