/** The dashboard's figures (`GET /api/admin/dashboard`, `/api/admin/dashboard/days`). */
import { adminApi } from '@/lib/admin-api';

export interface Totals {
  contracts: number;
  volume: string;
  settled: number;
  usersNet: string;
  logins: number;
  registrations: number;
}

export interface Dashboard {
  users: number;
  openContracts: number;
  houseBalance: string;
  houseReserved: string;
  seedCapital: string;
  depositsApproved: string;
  withdrawalsPaid: string;
  pendingDeposits: number;
  pendingWithdrawals: number;
  online: number;
  totals: Totals;
}

/** One UTC day (real money only). */
export interface Day {
  day: number;
  registrations: number;
  logins: number;
  deposits: number;
  depositAmount: string;
  withdrawals: number;
  withdrawalAmount: string;
  contracts: number;
  turnover: string;
  fees: string;
  settled: number;
  houseResult: string;
}

export const DASHBOARD_DAYS = 30;

export function fetchDashboard(signal?: AbortSignal): Promise<Dashboard> {
  return adminApi.get<Dashboard>('/admin/dashboard', { signal });
}

export function fetchDays(days: number, signal?: AbortSignal): Promise<Day[]> {
  return adminApi.get<Day[]>('/admin/dashboard/days', { query: { days }, signal });
}
