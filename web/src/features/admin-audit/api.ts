/** The audit log: every admin action with its admin, time, target and details. */
import { adminApi } from '@/lib/admin-api';
import type { Page } from '@/lib/api-client';
import type { Schemas } from '@/types/api';
import type { operations } from '@/types/openapi.gen';

/** One admin action: `refused` is the error code when it was refused. */
export type AuditRow = Schemas['AuditRow'];

/**
 * The engine's action names (`AdminAction::NAMES`), in the filter's order: every admin action,
 * and `two_factor_locked`, the engine's own record of an admin's two-factor pause.
 */
export const AUDIT_ACTIONS = [
  'create_admin',
  'set_user_frozen',
  'adjust_balance',
  'fund_house',
  'approve_deposit',
  'reject_deposit',
  'approve_withdrawal',
  'reject_withdrawal',
  'complete_withdrawal',
  'fail_withdrawal',
  'upsert_product',
  'set_rule',
  'remove_rule',
  'set_sale_terms',
  'create_tournament',
  'update_tournament',
  'publish_tournament',
  'cancel_tournament',
  'update_settings',
  'set_deposit_accounts',
  'broadcast_notice',
  'withdraw_notice',
  'set_admin_disabled',
  'change_own_password',
  'set_own_totp',
  'two_factor_locked',
] as const;

/** An action the server's audit filter takes (its OpenAPI document lists them). */
type ServerAction = NonNullable<NonNullable<operations['audit']['parameters']['query']>['action']>;
/** Fails to compile when the server names an action the filter does not list, or the other way round. */
const _everyAction: [Exclude<ServerAction, (typeof AUDIT_ACTIONS)[number]>, Exclude<(typeof AUDIT_ACTIONS)[number], ServerAction>] extends [never, never] ? true : never = true;
void _everyAction;

export interface AuditFilter {
  admin: number | null;
  action: string | null;
  /** Epoch ms, inclusive. */
  start: number | null;
  end: number | null;
}

export const AUDIT_PAGE_SIZE = 50;

export function fetchAudit(filter: AuditFilter, page: number, signal?: AbortSignal): Promise<Page<AuditRow>> {
  return adminApi.get<Page<AuditRow>>('/admin/audit', { query: { ...filter, page, pageSize: AUDIT_PAGE_SIZE }, signal });
}
