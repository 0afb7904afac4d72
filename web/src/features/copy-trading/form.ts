/**
 * The copy settings form's text fields to the API's settings, and back. Checked as the server
 * checks them before anything is sent: the percent a whole number from 1 to 1000, both stakes
 * amounts above 0 with at most 2 decimals and the minimum not above the maximum, the stop level
 * 0 or more (any zero is no stop; empty is sent as "0"). Compared as decimals, never as floats.
 */
import { AMOUNT_TEXT, compare, isAmountText } from '@/lib/decimal';

import type { CopySettingsView } from './api';

export type CopyAccount = CopySettingsView['account'];

export interface CopyForm {
  account: CopyAccount;
  percent: string;
  minStake: string;
  maxStake: string;
  stopBelow: string;
}

export type CopyField = 'percent' | 'minStake' | 'maxStake' | 'stopBelow';

export type CopyFormErrors = Partial<Record<CopyField, string>>;

export const PERCENT_MIN = 1;
export const PERCENT_MAX = 1000;

/** What a new copy starts with: the trader's stake as it is, from 1 to 100 USDT, no stop. */
export function newCopyForm(account: CopyAccount): CopyForm {
  return { account, percent: '100', minStake: '1', maxStake: '100', stopBelow: '0' };
}

/** The form as settings in force fill it. */
export function formOf(settings: CopySettingsView): CopyForm {
  return {
    account: settings.account === 'real' ? 'real' : 'demo',
    percent: String(settings.percent),
    minStake: settings.minStake,
    maxStake: settings.maxStake,
    stopBelow: settings.stopBelow,
  };
}

/** Checks the form; answers the settings to send or the catalogue keys of what is wrong. */
export function parseCopyForm(form: CopyForm): { settings: CopySettingsView } | { errors: CopyFormErrors } {
  const errors: CopyFormErrors = {};
  const percent = form.percent.trim();
  if (!/^\d{1,4}$/.test(percent) || Number(percent) < PERCENT_MIN || Number(percent) > PERCENT_MAX) errors.percent = 'copyTrading.validation.percent';
  const minStake = form.minStake.trim();
  const maxStake = form.maxStake.trim();
  if (!isAmountText(minStake)) errors.minStake = 'copyTrading.validation.amount';
  if (!isAmountText(maxStake)) errors.maxStake = 'copyTrading.validation.amount';
  else if (!errors.minStake && compare(minStake, maxStake) > 0) errors.maxStake = 'copyTrading.validation.minAboveMax';
  const stop = form.stopBelow.trim() || '0';
  if (!AMOUNT_TEXT.test(stop)) errors.stopBelow = 'copyTrading.validation.stop';
  if (Object.keys(errors).length) return { errors };
  // The server takes any spelling of zero ("0.00"), as an empty one, as no stop: sent as typed.
  return { settings: { account: form.account, percent: Number(percent), minStake, maxStake, stopBelow: stop } };
}

/** True when a stop level is set (anything but zero). */
export function hasStop(stopBelow: string): boolean {
  return /[1-9]/.test(stopBelow);
}
