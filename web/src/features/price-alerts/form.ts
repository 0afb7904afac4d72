/**
 * Checks a typed alert price before it is sent (the server checks again): a plain decimal
 * above zero, no more decimals than the product's prices, and not the price of now (there
 * would be nothing to cross). Compared as decimals, never as floats.
 */
import { compare, decimal, fractionDigits } from '@/lib/decimal';

export type AlertPriceError = 'required' | 'invalid' | 'decimals' | 'atMarket';

export function checkAlertPrice(text: string, precision: number, current: string | null): AlertPriceError | null {
  const value = text.trim();
  if (!value) return 'required';
  if (!/^\d{1,12}(\.\d{1,10})?$/.test(value) || !decimal(value)?.gt(0)) return 'invalid';
  // Trailing zeros are the same price: 1.1000 has one decimal.
  if (fractionDigits(value.includes('.') ? value.replace(/0+$/, '') : value) > precision) return 'decimals';
  if (current && decimal(current) && compare(value, current) === 0) return 'atMarket';
  return null;
}

/** Which way the market must move to reach `price` from `current`; null without a price. */
export function alertDirection(price: string, current: string | null): 'above' | 'below' | null {
  if (!current || !decimal(price) || !decimal(current)) return null;
  const side = compare(price, current);
  return side > 0 ? 'above' : side < 0 ? 'below' : null;
}
