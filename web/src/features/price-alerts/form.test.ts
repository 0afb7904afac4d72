import { describe, expect, it } from 'vitest';

import { alertDirection, checkAlertPrice } from './form';

describe('checkAlertPrice', () => {
  it('takes a plain price above zero with the product’s decimals at most', () => {
    expect(checkAlertPrice('95000.5', 2, '91234.56')).toBeNull();
    expect(checkAlertPrice(' 1.0850 ', 4, '1.0849')).toBeNull();
    expect(checkAlertPrice('95000.50', 2, null)).toBeNull();
  });

  it('names what is wrong', () => {
    expect(checkAlertPrice('', 2, '1')).toBe('required');
    expect(checkAlertPrice('abc', 2, '1')).toBe('invalid');
    expect(checkAlertPrice('-5', 2, '1')).toBe('invalid');
    expect(checkAlertPrice('0', 2, '1')).toBe('invalid');
    expect(checkAlertPrice('1e5', 2, '1')).toBe('invalid');
    expect(checkAlertPrice('1.001', 2, '1')).toBe('decimals');
    // Trailing zeros past the precision are the same price.
    expect(checkAlertPrice('1.1000', 2, '1')).toBeNull();
    expect(checkAlertPrice('91234.560', 2, '91234.56')).toBe('atMarket');
  });
});

describe('alertDirection', () => {
  it('is above for a rise, below for a fall, none at the price or without one', () => {
    expect(alertDirection('110', '100.5')).toBe('above');
    expect(alertDirection('99.99', '100')).toBe('below');
    expect(alertDirection('100.00', '100')).toBeNull();
    expect(alertDirection('100', null)).toBeNull();
  });
});
