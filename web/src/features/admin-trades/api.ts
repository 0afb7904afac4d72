/** Every user's contracts, and a user's referral team, in the back-office. */
import { adminApi } from '@/lib/admin-api';
import type { Page } from '@/lib/api-client';
import type { ContractRow, Schemas } from '@/types/api';

/** A contract as the back-office lists it (`user`: its owner's UID). */
export type AdminContract = ContractRow;

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

export type TeamMember = Schemas['Member'];

/** One generation of a user's referral team, with its members. */
export type Generation = Schemas['Generation'];

export const fetchTeam = (uid: number, signal?: AbortSignal) => adminApi.get<Generation[]>(`/admin/teams/${uid}`, { signal });
