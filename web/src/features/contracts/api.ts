/** Contract records (read model): the user's contracts, newest first, with their ticks. */
import { api } from '@/lib/api';
import type { Page } from '@/lib/api-client';

export interface TickRow {
  price: string;
  time: number;
  sequence: number;
}

export interface ContractRecord {
  id: number;
  account: 'real' | 'demo';
  symbol: string;
  direction: 'up' | 'down';
  stake: string;
  fee: string;
  payoutRate: string;
  duration: number;
  acceptedAt: number;
  entry: TickRow | null;
  expiryAt: number | null;
  exit: TickRow | null;
  outcome: string | null;
  credited: string | null;
  profit: string | null;
  settledAt: number | null;
  status: 'waiting_entry' | 'open' | 'settled' | 'void';
}

export const RECORDS_PAGE_SIZE = 20;

export const recordsApi = {
  list: (status: 'open' | 'settled', page: number) =>
    api.get<Page<ContractRecord>>('/trade/contracts', { query: { status, page, pageSize: RECORDS_PAGE_SIZE } }),
  get: (id: number) => api.get<ContractRecord>(`/trade/contracts/${id}`),
};
