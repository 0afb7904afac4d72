/** The user's own responsible-trading limits (decisions §7b). */
import { api } from '@/lib/api';
import type { Schemas } from '@/types/api';

/** The user's limits, null where none is set; `excludedUntil`: no trading before this time (ms). */
export type Limits = Schemas['LimitsView'];

/** The limits in force, and `pending`: a loosening asked for, in force from `pendingFrom`. */
export type LimitsAnswer = Schemas['LimitsAnswer'];

export const limitsApi = {
  get: () => api.get<LimitsAnswer>('/user/trading-limits'),
  set: (limits: Limits) => api.put<LimitsAnswer>('/user/trading-limits', limits),
};
