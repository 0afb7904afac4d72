/** The published trading rules (decisions §2): one per duration, for new contracts only. */
import { adminApi } from '@/lib/admin-api';
import type { Schemas } from '@/types/api';

/** A rule as the server lists it (`RuleView`) and takes it (`RuleBody`, the same fields). */
export type Rule = Schemas['RuleView'];

export const fetchRules = (signal?: AbortSignal) => adminApi.get<Rule[]>('/admin/rules', { signal });

/** Adds or replaces the rule of `rule.duration`; answers every rule. */
export const saveRule = (rule: Schemas['RuleBody']) => adminApi.put<Rule[]>('/admin/rules', rule);

export const removeRule = (duration: number) => adminApi.delete<Rule[]>(`/admin/rules/${duration}`);
