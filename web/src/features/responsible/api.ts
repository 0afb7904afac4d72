/** The user's own responsible-trading limits (decisions §7b). */
import { api } from '@/lib/api';

export interface Limits {
  dailyLoss: string | null;
  dailyTurnover: string | null;
  openContracts: number | null;
  sessionReminderMinutes: number | null;
  /** No trading before this time (ms). */
  excludedUntil: number | null;
}

export interface LimitsAnswer {
  current: Limits;
  /** A loosening asked for, in force from `pendingFrom`. */
  pending: Limits | null;
  pendingFrom: number | null;
  todayLoss: string;
  todayTurnover: string;
}

export const limitsApi = {
  get: () => api.get<LimitsAnswer>('/user/trading-limits'),
  set: (limits: Limits) => api.put<LimitsAnswer>('/user/trading-limits', limits),
};
