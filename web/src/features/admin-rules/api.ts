/** The published trading rules (decisions §2): one per duration, for new contracts only. */
import { adminApi } from '@/lib/admin-api';

export interface Rule {
  duration: number;
  payoutRate: string;
  minAmount: string;
  maxAmount: string;
  feeRate: string;
  enabled: boolean;
}

export const fetchRules = (signal?: AbortSignal) => adminApi.get<Rule[]>('/admin/rules', { signal });

/** Adds or replaces the rule of `rule.duration`; answers every rule. */
export const saveRule = (rule: Rule) => adminApi.put<Rule[]>('/admin/rules', rule);

export const removeRule = (duration: number) => adminApi.delete<Rule[]>(`/admin/rules/${duration}`);
