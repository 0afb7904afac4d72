/**
 * The money forms' rules (spec §5 withdrawal, decisions §4). Each check answers the catalogue
 * key of its message, or nothing when the value is good. Amounts are decimal strings and are
 * compared and computed with the decimal library, never as floats.
 */
import Big from 'big.js';

import { AMOUNT_TEXT, compare, decimal, isAmountText } from '@/lib/decimal';

import type { Chain } from './api';

export type AmountCheck = { key: string; args?: Record<string, string> } | undefined;

/** A valid amount between min and max, and not above what is available (when given). */
export function checkAmount(value: string, min: string, max: string, available?: string): AmountCheck {
  const text = value.trim();
  if (!isAmountText(text)) return { key: 'wallet.validation.amountInvalid' };
  if (compare(text, min) < 0 || compare(text, max) > 0) return { key: 'wallet.validation.amountRange', args: { min, max } };
  if (available !== undefined && compare(text, available) > 0) return { key: 'wallet.validation.insufficient' };
  return undefined;
}

/**
 * The withdrawal's fee and what arrives, as the engine computes them: amount × rate + fixed,
 * rounded half-even to cents; null while the amount is not a number. A fee that eats the
 * whole amount leaves nothing to pay out (`actual` is then "0.00" and the server refuses).
 */
export function withdrawalFee(amount: string, rate: string, fixed: string): { fee: string; actual: string } | null {
  const value = AMOUNT_TEXT.test(amount.trim()) ? decimal(amount.trim()) : null;
  if (!value) return null;
  const fee = value.times(new Big(rate)).plus(new Big(fixed)).round(2, Big.roundHalfEven);
  const actual = value.minus(fee);
  return { fee: fee.toFixed(2), actual: (actual.gt(0) ? actual : new Big(0)).toFixed(2) };
}

const ADDRESS: Record<Chain, RegExp> = {
  eth: /^0x[0-9a-fA-F]{40}$/,
  trust: /^0x[0-9a-fA-F]{40}$/,
  tron: /^T[1-9A-HJ-NP-Za-km-z]{33}$/,
};

/** A wallet address of the chosen network (spec §5: required and valid). */
export function checkAddress(chain: Chain, address: string): string | undefined {
  const text = address.trim();
  if (!text) return 'wallet.validation.addressRequired';
  if (!ADDRESS[chain].test(text)) return 'wallet.validation.addressInvalid';
  return undefined;
}

/** Bank details: all three are needed (spec §5: all bank information must be filled). */
export function checkBank(fields: { accountName: string; accountNumber: string; bankName: string }): string | undefined {
  return Object.values(fields).every((v) => v.trim()) ? undefined : 'wallet.validation.bankRequired';
}

/** An authenticator code: 6 digits. */
export function checkTotp(code: string): string | undefined {
  return /^\d{6}$/.test(code.trim()) ? undefined : 'wallet.validation.totpInvalid';
}

/** A UID: a positive whole number. */
export function checkUid(value: string): string | undefined {
  return /^[1-9]\d{0,9}$/.test(value.trim()) && Number(value.trim()) <= 4_294_967_295 ? undefined : 'wallet.validation.uidInvalid';
}

/** Receipt images the server takes: PNG, JPEG, GIF, WebP up to its size cap. */
export const RECEIPT_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'];
export const RECEIPT_BYTES_MAX = 5 * 1024 * 1024;

export function checkReceipt(file: File | null): string | undefined {
  if (!file) return 'wallet.validation.receiptRequired';
  if (!RECEIPT_TYPES.includes(file.type)) return 'wallet.validation.receiptType';
  if (file.size > RECEIPT_BYTES_MAX) return 'wallet.validation.receiptSize';
  return undefined;
}
