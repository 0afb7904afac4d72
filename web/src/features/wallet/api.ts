/**
 * The wallet's calls: bills, deposit and withdrawal orders, the forms' limits, saved
 * addresses, transfers. Amounts travel as decimal strings both ways.
 */
import { api } from '@/lib/api';
import type { Page } from '@/lib/api-client';
import { type UploadOptions, upload } from '@/lib/upload';
import type { MoneyOrder, OrderStatus, Schemas } from '@/types/api';

/** Every bill type of decisions §3 (and `sale`, an early close of §11), in the order the filter lists them. */
export const BILL_TYPES = ['deposit', 'withdraw', 'profit', 'loss', 'sale', 'fee', 'refund', 'reward', 'transfer_in', 'transfer_out', 'adjustment', 'tournament_fee', 'tournament_prize', 'tournament_refund'] as const;
export type BillType = (typeof BILL_TYPES)[number];

/** A bill: `type` one of {@link BILL_TYPES}, `amount` signed, `balance` the available balance after it. */
export type Bill = Schemas['BillRow'];

/** A page of bills, with the totals in and out of all that matched, and per bill type. */
export type Bills = Schemas['Bills'];
/** An account's opening and closing balances over a range, and its movements' totals. */
export type Statement = Schemas['StatementView'];

export type { MoneyOrder, OrderStatus };

export type PayMethod = Schemas['DepositBody']['method'];
export const PAY_METHODS = ['bank_transfer', 'usdt_trc20', 'usdt_erc20'] as const satisfies readonly PayMethod[];

/** Where to pay a deposit of one method. */
export type DepositAccount = Schemas['DepositAccountView'];

export type DepositInfo = Schemas['DepositInfo'];

export type Chain = Schemas['AddressBody']['chain'];

/** A saved withdrawal address: `chain` is one of {@link Chain}. */
export type SavedAddress = Schemas['AddressView'];

/** The withdrawal form's limits; `blockedUntil`: money may not leave before this time (ms) after a password change. */
export type WithdrawInfo = Schemas['WithdrawInfo'];

export type DepositRequest = Schemas['DepositBody'];

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
  statement: (f: Omit<BillFilter, 'page' | 'pageSize' | 'type'>) =>
    api.get<Statement>('/wallet/statement', { query: { account: f.account, start: f.start, end: f.end } }),
  /** The statement as a PDF, in the language of the request. */
  statementPdf: (f: Omit<BillFilter, 'page' | 'pageSize' | 'type'>) =>
    api.download('/wallet/statement/pdf', { query: { account: f.account, start: f.start, end: f.end } }),
  /** Every bill the filters match, oldest first, as a CSV file. */
  exportBills: (f: Omit<BillFilter, 'page' | 'pageSize'>) =>
    api.download('/wallet/bills/export', { query: { account: f.account, type: f.type || undefined, start: f.start, end: f.end } }),
  orders: (kind: 'deposit' | 'withdraw', page: number, pageSize: number) =>
    api.get<Page<MoneyOrder>>(kind === 'deposit' ? '/wallet/deposits' : '/wallet/withdrawals', { query: { page, pageSize } }),
  depositInfo: () => api.get<DepositInfo>('/wallet/deposit-info'),
  withdrawInfo: () => api.get<WithdrawInfo>('/wallet/withdraw-info'),
  uploadReceipt: (file: File, options: UploadOptions) => upload<Schemas['Uploaded']>(api, '/upload', file, options),
  deposit: (body: DepositRequest) => api.post<Schemas['OrderCreated']>('/wallet/deposits', body),
  withdraw: (body: WithdrawRequest) => api.post<Schemas['OrderCreated']>('/wallet/withdrawals', body),
  addAddress: (body: Schemas['AddressBody']) => api.post<SavedAddress[]>('/wallet/addresses', body),
  removeAddress: (position: number) => api.delete<SavedAddress[]>(`/wallet/addresses/${position}`),
  recipient: (uid: number) => api.get<Schemas['Recipient']>(`/wallet/recipient/${uid}`),
  transfer: (body: { toUid: number; amount: string; totpCode?: string }) => api.post<Schemas['Empty']>('/wallet/transfers', body),
  resetDemo: () => api.post<unknown>('/wallet/demo/reset', {}),
};
