/** Recharge and withdraw orders in the back-office. */
import { adminApi } from '@/lib/admin-api';

import type { PendingKind } from './badges';

/** `GET /api/admin/{recharge,withdraw}-orders/pending-count` (spec §7). */
export async function pendingCount(kind: PendingKind, signal?: AbortSignal): Promise<number> {
  const answer = await adminApi.get<{ count: number }>(`/admin/${kind}-orders/pending-count`, { signal });
  return answer.count;
}
