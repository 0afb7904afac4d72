/**
 * The limits form's text fields to the API's values, and back. Each field may be empty (no
 * limit); money is a plain decimal string, counts whole numbers, the exclusion a local date
 * whose end (the next local midnight) is when trading may resume.
 */
import { dayEndMs } from '@/lib/dates';
import { isAmountText } from '@/lib/decimal';

import type { Limits } from './api';

export interface LimitsForm {
  dailyLoss: string;
  dailyTurnover: string;
  openContracts: string;
  sessionReminderMinutes: string;
  excludeUntil: string;
}

/** The engine's longest self-exclusion: five years. */
export const EXCLUSION_MAX_MS = 5 * 365 * 24 * 3_600_000;

const COUNT = /^[1-9]\d{0,4}$/;

export type FormErrors = Partial<Record<keyof LimitsForm, string>>;

/** Checks the form; answers the values or the catalogue keys of what is wrong. */
export function parseLimits(form: LimitsForm, now: number): { limits: Limits } | { errors: FormErrors } {
  const errors: FormErrors = {};
  const money = (key: 'dailyLoss' | 'dailyTurnover') => {
    const v = form[key].trim();
    if (!v) return null;
    if (!isAmountText(v)) errors[key] = 'responsible.validation.amount';
    return v;
  };
  const count = (key: 'openContracts' | 'sessionReminderMinutes') => {
    const v = form[key].trim();
    if (!v) return null;
    if (!COUNT.test(v) || Number(v) > 100_000) errors[key] = 'responsible.validation.count';
    return Number(v);
  };
  let excludedUntil: number | null = null;
  if (form.excludeUntil) {
    const end = dayEndMs(form.excludeUntil);
    if (end === null || end + 1 <= now) errors.excludeUntil = 'responsible.validation.date';
    else if (end + 1 > now + EXCLUSION_MAX_MS) errors.excludeUntil = 'responsible.validation.tooFar';
    else excludedUntil = end + 1;
  }
  const limits: Limits = {
    dailyLoss: money('dailyLoss'),
    dailyTurnover: money('dailyTurnover'),
    openContracts: count('openContracts'),
    sessionReminderMinutes: count('sessionReminderMinutes'),
    excludedUntil,
  };
  return Object.keys(errors).length ? { errors } : { limits };
}

/** The form as the limits in force fill it (the exclusion is shown, not re-sent, when it runs). */
export function formOf(limits: Limits): LimitsForm {
  return {
    dailyLoss: limits.dailyLoss ?? '',
    dailyTurnover: limits.dailyTurnover ?? '',
    openContracts: limits.openContracts ? String(limits.openContracts) : '',
    sessionReminderMinutes: limits.sessionReminderMinutes ? String(limits.sessionReminderMinutes) : '',
    excludeUntil: '',
  };
}
