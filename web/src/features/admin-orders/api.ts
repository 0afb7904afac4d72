/** Recharge and withdraw orders in the back-office. */
import { adminApi } from '@/lib/admin-api';
import type { Page } from '@/lib/api-client';
import { useAdminSession } from '@/stores/admin-session';
import type { MoneyOrder, OrderStatus, Schemas } from '@/types/api';

import type { PendingKind } from './badges';

/** `GET /api/admin/{recharge,withdraw}-orders/pending-count` (spec §7). */
export async function pendingCount(kind: PendingKind, signal?: AbortSignal): Promise<number> {
  const answer = await adminApi.get<Schemas['Count']>(`/admin/${kind}-orders/pending-count`, { signal });
  return answer.count;
}

export type { OrderStatus };

/** A recharge or withdraw order as the back-office lists it (`user`: its owner's UID). */
export type AdminOrder = MoneyOrder;

export const ORDERS_PAGE_SIZE = 20;

export function fetchOrders(kind: PendingKind, status: OrderStatus | null, page: number, signal?: AbortSignal): Promise<Page<AdminOrder>> {
  return adminApi.get<Page<AdminOrder>>(`/admin/${kind}-orders`, { query: { status, page, pageSize: ORDERS_PAGE_SIZE }, signal });
}

/** What an admin can do to an order; `reject` and `failed` carry a remark. */
export type OrderAction = 'approve' | 'reject' | 'paid' | 'failed';

export const REMARK_ACTIONS: ReadonlySet<OrderAction> = new Set(['reject', 'failed']);

export function actOnOrder(kind: PendingKind, id: number, action: OrderAction, remark: string): Promise<unknown> {
  return adminApi.post(`/admin/${kind}-orders/${id}/${action}`, REMARK_ACTIONS.has(action) ? { remark } : {});
}

/** The actions an order's state allows (decisions §4). */
export function actionsFor(kind: PendingKind, status: AdminOrder['status']): OrderAction[] {
  if (status === 'pending') return ['approve', 'reject'];
  if (kind === 'withdraw' && status === 'processing') return ['paid', 'failed'];
  return [];
}

/** A receipt image, fetched with the admin token (an <img> cannot send it), as an object URL. */
export async function fetchReceipt(name: string, signal?: AbortSignal): Promise<string> {
  const token = useAdminSession.getState().token;
  const response = await fetch(adminApi.url(`/uploads/${encodeURIComponent(name)}`), {
    headers: token ? { Authorization: `Bearer ${token}` } : {},
    signal,
  });
  if (!response.ok) throw new Error(`receipt ${response.status}`);
  return URL.createObjectURL(await response.blob());
}
