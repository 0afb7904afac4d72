/** A rule's form: the server's own checks, and what a change does to a contract's terms. */
import { decimal, multiply, winCredit } from '@/lib/decimal';

import type { Rule } from './api';

export type RuleForm = Omit<Rule, 'duration'> & { duration: string };
export type RuleErrors = Partial<Record<keyof RuleForm, string>>;

const RATE = /^\d(\.\d{1,4})?$/;
const MONEY = /^\d{1,10}(\.\d{1,2})?$/;
/** The longest duration offered: a week (the longest trade panel period). */
export const DURATION_MAX_SECS = 7 * 24 * 3600;

export function checkRule(form: RuleForm): RuleErrors {
  const errors: RuleErrors = {};
  const duration = Number(form.duration);
  if (!/^\d+$/.test(form.duration.trim()) || duration < 1 || duration > DURATION_MAX_SECS) errors.duration = 'admin.rules.errors.duration';
  for (const key of ['payoutRate', 'feeRate'] as const) {
    const text = form[key].trim();
    if (!RATE.test(text) || (decimal(text)?.gt(1) ?? true)) errors[key] = 'admin.rules.errors.rate';
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
