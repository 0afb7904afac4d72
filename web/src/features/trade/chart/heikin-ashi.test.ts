import { describe, expect, it } from 'vitest';

import { CHART_TYPES, heikinAshi, isChartType } from './chart-controller';

describe('heikinAshi', () => {
  it('averages each bar, opens at the previous body midpoint and stretches the wicks', () => {
    const candles = [
      { open: 10, high: 14, low: 8, close: 12 },
      { open: 12, high: 13, low: 9, close: 10 },
      { open: 10, high: 20, low: 10, close: 18 },
    ];
    const [a, b, c] = heikinAshi(candles);
    // First bar: open is its own body midpoint, close the mean of its four prices.
    expect(a).toEqual({ open: 11, high: 14, low: 8, close: 11 });
    // Second: open = (11 + 11) / 2, close = (12 + 13 + 9 + 10) / 4 = 11.
    expect(b).toEqual({ open: 11, high: 13, low: 9, close: 11 });
    // Third: open = (11 + 11) / 2, close = (10 + 20 + 10 + 18) / 4; the wicks are the bar's own.
    expect(c).toEqual({ open: 11, high: 20, low: 10, close: 14.5 });
  });

  it('gives nothing for no candles', () => {
    expect(heikinAshi([])).toEqual([]);
  });
});

describe('isChartType', () => {
  it('accepts the six forms and refuses anything else kept in storage', () => {
    for (const type of CHART_TYPES) expect(isChartType(type)).toBe(true);
    expect(isChartType('renko')).toBe(false);
    expect(isChartType(null)).toBe(false);
  });
});
