/**
 * The published trading rules (decisions §2): one per duration, for new contracts only; and
 * early close's terms (decisions §11): offered or not, the cut-off before expiry, the spread
 * taken from the fair value by duration, and each product's own early close.
 */
import { adminApi } from '@/lib/admin-api';
import type { Schemas } from '@/types/api';

/** A rule as the server lists it (`RuleView`) and takes it (`RuleBody`, the same fields). */
export type Rule = Schemas['RuleView'];

export const fetchRules = (signal?: AbortSignal) => adminApi.get<Rule[]>('/admin/rules', { signal });

/** Adds or replaces the rule of `rule.duration`; answers every rule. */
export const saveRule = (rule: Schemas['RuleBody']) => adminApi.put<Rule[]>('/admin/rules', rule);

export const removeRule = (duration: number) => adminApi.delete<Rule[]>(`/admin/rules/${duration}`);

/**
 * Early close as published: the terms in force (spreads are fractions, "0.05" = 5 %), the
 * volatility window, and the rule in words. A duration not listed takes the default spread; a
 * product not listed is offered, with nothing added.
 */
export type EarlyClose = Schemas['EarlyClose'];

/** Terms to set: they replace the terms in force, for sales from now on (audited). */
export type EarlyCloseBody = Schemas['EarlyCloseBody'];

export const fetchEarlyClose = (signal?: AbortSignal) => adminApi.get<EarlyClose>('/admin/rules/early-close', { signal });

/** Replaces early close's terms; answers them as now in force. */
export const saveEarlyClose = (body: EarlyCloseBody) => adminApi.put<EarlyClose>('/admin/rules/early-close', body);

/** A listed product, as the products API lists it: the early-close terms name products by `symbol`. */
export type ListedProduct = Pick<Schemas['ProductAdmin'], 'symbol' | 'name' | 'enabled'>;

/** The listed products (`GET /api/admin/products`, which needs `products:read`). */
export const fetchListedProducts = (signal?: AbortSignal) => adminApi.get<ListedProduct[]>('/admin/products', { signal });
