/** Contract records (read model): the user's contracts, newest first, with their ticks. */
import { api } from '@/lib/api';
import type { Page } from '@/lib/api-client';
import type { ContractRow } from '@/types/api';

/** A contract record with its ticks (and `copiedFrom`, the trader a copy was copied from). */
export type ContractRecord = ContractRow;

export const RECORDS_PAGE_SIZE = 20;

/**
 * Whose orders a list holds: all, only my own (`copied=false`) or only copies of other
 * traders' orders (`copied=true`).
 */
export type Origin = 'all' | 'own' | 'copies';

const COPIED: Record<Origin, boolean | undefined> = { all: undefined, own: false, copies: true };

export const recordsApi = {
  list: (status: 'open' | 'settled', page: number, origin: Origin = 'all') =>
    api.get<Page<ContractRecord>>('/trade/contracts', { query: { status, copied: COPIED[origin], page, pageSize: RECORDS_PAGE_SIZE } }),
  get: (id: number) => api.get<ContractRecord>(`/trade/contracts/${id}`),
  /** Every contract of the tab, both accounts, oldest first, as a CSV file. */
  export: (status: 'open' | 'settled') => api.download('/trade/contracts/export', { query: { status } }),
};
