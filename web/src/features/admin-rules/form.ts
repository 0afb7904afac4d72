/**
 * A rule's form: the server's own checks, and what a change does to a contract's terms. Early
 * close's form: its terms as typed, checked as the server checks them, and the body to save.
 */
import { decimal, multiply, winCredit } from '@/lib/decimal';

import type { EarlyClose, EarlyCloseBody, Rule } from './api';

export type RuleForm = Omit<Rule, 'duration'> & { duration: string };
export type RuleErrors = Partial<Record<keyof RuleForm, string>>;

const RATE = /^\d(\.\d{1,4})?$/;
const MONEY = /^\d{1,10}(\.\d{1,2})?$/;
/** The longest duration offered: a week (the longest trade panel period). */
export const DURATION_MAX_SECS = 7 * 24 * 3600;

/** A rate the server takes: a fraction from 0 to 1 with at most 4 decimals ("0.05" = 5 %). */
export function isRate(text: string): boolean {
  const trimmed = text.trim();
  return RATE.test(trimmed) && !(decimal(trimmed)?.gt(1) ?? true);
}

export function checkRule(form: RuleForm): RuleErrors {
  const errors: RuleErrors = {};
  const duration = Number(form.duration);
  if (!/^\d+$/.test(form.duration.trim()) || duration < 1 || duration > DURATION_MAX_SECS) errors.duration = 'admin.rules.errors.duration';
  for (const key of ['payoutRate', 'feeRate'] as const) {
    if (!isRate(form[key])) errors[key] = 'admin.rules.errors.rate';
  }
  for (const key of ['minAmount', 'maxAmount'] as const) {
    const text = form[key].trim();
    if (!MONEY.test(text) || !/[1-9]/.test(text)) errors[key] = 'admin.rules.errors.amount';
  }
  if (!errors.minAmount && !errors.maxAmount && decimal(form.minAmount.trim())!.gt(decimal(form.maxAmount.trim())!)) {
    errors.maxAmount = 'admin.rules.errors.minOverMax';
  }
  return errors;
}

export function toRule(form: RuleForm): Rule {
  return {
    duration: Number(form.duration),
    payoutRate: form.payoutRate.trim(),
    minAmount: form.minAmount.trim(),
    maxAmount: form.maxAmount.trim(),
    feeRate: form.feeRate.trim(),
    enabled: form.enabled,
  };
}

export function toForm(rule: Rule): RuleForm {
  return { ...rule, duration: String(rule.duration) };
}

/** What a winning stake of 100 USDT is credited, and its fee, under a rule. */
export function example(rule: Pick<Rule, 'payoutRate' | 'feeRate'>): { credit: string; fee: string } {
  return { credit: winCredit('100', rule.payoutRate), fee: multiply('100', rule.feeRate) };
}

/** One product's early close as typed: offered or not, and the spread added (empty: none). */
export interface ProductSaleForm {
  enabled: boolean;
  spread: string;
}

/** Early close's terms as typed. */
export interface EarlyCloseForm {
  enabled: boolean;
  cutoffSecs: string;
  /** The spread for a duration without one of its own (a fraction). */
  spread: string;
  /** A duration's own spread, by duration in seconds; empty: the default. */
  durations: Record<number, string>;
  /** By symbol; a product not here is offered, with nothing added. */
  products: Record<string, ProductSaleForm>;
}

/** A message key by field: `cutoffSecs`, `spread`, `durations.60`, `products.BTCUSDT`. */
export type EarlyCloseErrors = Record<string, string>;

/** The product form of a product the terms do not name: offered, nothing added. */
export const PRODUCT_DEFAULT: ProductSaleForm = { enabled: true, spread: '' };

/** A product's key in the terms (the server names products in capitals). */
export const productKey = (symbol: string) => symbol.trim().toUpperCase();

const isZero = (text: string) => text.trim() === '' || (decimal(text.trim())?.eq(0) ?? false);

export function toEarlyCloseForm(terms: EarlyClose): EarlyCloseForm {
  return {
    enabled: terms.enabled,
    cutoffSecs: String(terms.cutoffSecs),
    spread: terms.spread,
    durations: Object.fromEntries(terms.durations.map((d) => [d.duration, d.spread])),
    products: Object.fromEntries(terms.products.map((p) => [productKey(p.symbol), { enabled: p.enabled, spread: isZero(p.spread) ? '' : p.spread }])),
  };
}

export function checkEarlyClose(form: EarlyCloseForm): EarlyCloseErrors {
  const errors: EarlyCloseErrors = {};
  const cutoff = form.cutoffSecs.trim();
  if (!/^\d{1,6}$/.test(cutoff) || Number(cutoff) > DURATION_MAX_SECS) errors.cutoffSecs = 'admin.rules.early.errors.cutoff';
  if (!isRate(form.spread)) errors.spread = 'admin.rules.errors.rate';
  for (const [duration, spread] of Object.entries(form.durations)) {
    if (spread.trim() !== '' && !isRate(spread)) errors[`durations.${duration}`] = 'admin.rules.errors.rate';
  }
  for (const [symbol, product] of Object.entries(form.products)) {
    if (product.spread.trim() !== '' && !isRate(product.spread)) errors[`products.${symbol}`] = 'admin.rules.errors.rate';
  }
  return errors;
}

/**
 * The terms to save: the durations with a spread of their own, and the products switched off or
 * with a spread added; every other duration and product takes the defaults.
 */
export function toEarlyCloseBody(form: EarlyCloseForm): EarlyCloseBody {
  return {
    enabled: form.enabled,
    cutoffSecs: Number(form.cutoffSecs.trim()),
    spread: form.spread.trim(),
    durations: Object.entries(form.durations)
      .filter(([, spread]) => spread.trim() !== '')
      .map(([duration, spread]) => ({ duration: Number(duration), spread: spread.trim() }))
      .sort((a, b) => a.duration - b.duration),
    products: Object.entries(form.products)
      .filter(([, p]) => !p.enabled || !isZero(p.spread))
      .map(([symbol, p]) => ({ symbol, enabled: p.enabled, spread: p.spread.trim() || '0' }))
      .sort((a, b) => (a.symbol < b.symbol ? -1 : a.symbol > b.symbol ? 1 : 0)),
  };
}
