/**
 * The wallet's calls: bills, deposit and withdrawal orders, the forms' limits, saved
 * addresses, transfers. Amounts travel as decimal strings both ways.
 */
import { api } from '@/lib/api';
import type { Page } from '@/lib/api-client';
import { type UploadOptions, upload } from '@/lib/upload';
import type { MoneyOrder, OrderStatus } from '@/types/api';

/** Every bill type of decisions §3, in the order the filter lists them. */
export const BILL_TYPES = ['deposit', 'withdraw', 'profit', 'loss', 'fee', 'refund', 'reward', 'transfer_in', 'transfer_out', 'adjustment'] as const;
export type BillType = (typeof BILL_TYPES)[number];

export interface Bill {
  id: number;
  account: 'real' | 'demo';
  type: BillType;
  /** Signed amount. */
  amount: string;
  /** Available balance after it. */
  balance: string;
  reference: number;
  status: string;
  time: number;
}

export interface Bills extends Page<Bill> {
  totalIn: string;
  totalOut: string;
  byType: Array<[string, string]>;
}

export type { MoneyOrder, OrderStatus };

export const PAY_METHODS = ['bank_transfer', 'usdt_trc20', 'usdt_erc20'] as const;
export type PayMethod = (typeof PAY_METHODS)[number];

export interface DepositAccount {
  method: PayMethod;
  name: string;
  number: string;
  bank: string;
}

export interface DepositInfo {
  minAmount: string;
  maxAmount: string;
  accounts: DepositAccount[];
}

export type Chain = 'eth' | 'tron' | 'trust';

export interface SavedAddress {
  position: number;
  label: string;
  chain: Chain;
  address: string;
  isDefault: boolean;
}

export interface WithdrawInfo {
  feeRate: string;
  feeFixed: string;
  minAmount: string;
  maxAmount: string;
  available: string;
  addresses: SavedAddress[];
  requiresTwoFactor: boolean;
  /** Money may not leave before this time (ms) after a password change. */
  blockedUntil: number | null;
}

export interface DepositRequest {
  amount: string;
  method: PayMethod;
  accountName: string;
  accountNumber: string;
  bankName: string;
  receipt: string;
}

export type WithdrawRequest =
  | { method: 'wallet'; amount: string; addressPosition: number; totpCode?: string }
  | { method: 'wallet'; amount: string; chain: Chain; address: string; totpCode?: string }
  | { method: 'bank'; amount: string; accountName: string; accountNumber: string; bankName: string; totpCode?: string };

export interface BillFilter {
  account: 'real' | 'demo';
  type?: BillType | '';
  start?: string;
  end?: string;
  page: number;
  pageSize: number;
}

export const walletApi = {
  bills: (f: BillFilter) =>
    api.get<Bills>('/wallet/bills', { query: { account: f.account, type: f.type || undefined, start: f.start, end: f.end, page: f.page, pageSize: f.pageSize } }),
  orders: (kind: 'deposit' | 'withdraw', page: number, pageSize: number) =>
    api.get<Page<MoneyOrder>>(kind === 'deposit' ? '/wallet/deposits' : '/wallet/withdrawals', { query: { page, pageSize } }),
  depositInfo: () => api.get<DepositInfo>('/wallet/deposit-info'),
  withdrawInfo: () => api.get<WithdrawInfo>('/wallet/withdraw-info'),
  uploadReceipt: (file: File, options: UploadOptions) => upload<{ name: string }>(api, '/upload', file, options),
  deposit: (body: DepositRequest) => api.post<{ orderId: number; status: OrderStatus }>('/wallet/deposits', body),
  withdraw: (body: WithdrawRequest) => api.post<{ orderId: number; status: OrderStatus }>('/wallet/withdrawals', body),
  addAddress: (body: { label: string; chain: Chain; address: string; isDefault: boolean }) => api.post<SavedAddress[]>('/wallet/addresses', body),
  removeAddress: (position: number) => api.delete<SavedAddress[]>(`/wallet/addresses/${position}`),
  recipient: (uid: number) => api.get<{ uid: number; name: string }>(`/wallet/recipient/${uid}`),
  transfer: (body: { toUid: number; amount: string; totpCode?: string }) => api.post<Record<string, never>>('/wallet/transfers', body),
  resetDemo: () => api.post<unknown>('/wallet/demo/reset', {}),
};
