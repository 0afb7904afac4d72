/** The dashboard's figures (`GET /api/admin/dashboard`, `/api/admin/dashboard/days`). */
import { adminApi } from '@/lib/admin-api';
import type { Schemas } from '@/types/api';

export type Totals = Schemas['Totals'];

export type Dashboard = Schemas['Dashboard'];

/** One UTC day (real money only). */
export type Day = Schemas['DayRow'];

export const DASHBOARD_DAYS = 30;

export function fetchDashboard(signal?: AbortSignal): Promise<Dashboard> {
  return adminApi.get<Dashboard>('/admin/dashboard', { signal });
}

export function fetchDays(days: number, signal?: AbortSignal): Promise<Day[]> {
  return adminApi.get<Day[]>('/admin/dashboard/days', { query: { days }, signal });
}
