/**
 * Decimal arithmetic on the amount strings the server sends (big.js: exact, no floats).
 * The server is the authority on money; these are for checks before sending and previews.
 */
import Big from 'big.js';

Big.RM = Big.roundHalfEven;

export type Decimal = Big;

/** What the server takes as an amount: up to 10 integer digits and 2 decimals, nothing else. */
export const AMOUNT_TEXT = /^\d{1,10}(\.\d{1,2})?$/;

/** True for an amount the server takes that is above zero. */
export function isAmountText(value: string): boolean {
  const text = value.trim();
  return AMOUNT_TEXT.test(text) && /[1-9]/.test(text);
}

/** Parses a decimal string; null for anything that is not a plain number. */
export function decimal(value: string): Big | null {
  const text = value.trim();
  if (!/^\d+(\.\d+)?$|^\d*\.\d+$|^-\d+(\.\d+)?$/.test(text)) return null;
  try {
    return new Big(text);
  } catch {
    return null;
  }
}

/** Digits after the decimal point of a typed amount. */
export function fractionDigits(value: string): number {
  const dot = value.indexOf('.');
  return dot < 0 ? 0 : value.length - dot - 1;
}

/** `a × b` rounded half-even to `dp` places, as a string. */
export function multiply(a: string, b: string, dp = 2): string {
  return new Big(a).times(new Big(b)).round(dp).toFixed(dp);
}

/** `a × (1 + rate)`: what a winning stake credits (decisions §2). */
export function winCredit(stake: string, rate: string): string {
  return new Big(stake).times(new Big(rate).plus(1)).round(2).toFixed(2);
}

/** True when the decimal string is greater than zero. */
export function isPositive(value: string): boolean {
  const parsed = decimal(value);
  return parsed !== null && parsed.gt(0);
}

/** Compares two decimal strings: -1, 0 or 1. */
export function compare(a: string, b: string): number {
  return new Big(a).cmp(new Big(b));
}

/** `a - b` as a string with `dp` places. */
export function subtract(a: string, b: string, dp = 2): string {
  return new Big(a).minus(new Big(b)).round(dp).toFixed(dp);
}

/** The sum of decimal strings with `dp` places (an unreadable value counts as zero). */
export function sum(values: readonly string[], dp = 2): string {
  return values.reduce((total, v) => total.plus(decimal(v) ?? 0), new Big(0)).round(dp).toFixed(dp);
}
