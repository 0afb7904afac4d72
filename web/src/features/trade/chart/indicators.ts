/**
 * Indicator math from trading-signals (a maintained library, not our own formulas), fed one
 * close at a time so that a forming candle replaces its last input instead of adding one.
 * This module is loaded only when a trader turns an indicator on.
 */
import { BollingerBands, EMA, MACD, RSI, SMA } from 'trading-signals';

export type IndicatorKey = 'ma' | 'ema' | 'boll' | 'rsi' | 'macd';

export const MA_PERIOD = 20;
export const EMA_PERIOD = 20;
export const BOLL_PERIOD = 20;
export const BOLL_DEVIATIONS = 2;
export const RSI_PERIOD = 14;
export const MACD_FAST = 12;
export const MACD_SLOW = 26;
export const MACD_SIGNAL = 9;

/** One output line of an indicator: its value at a candle, or null before it is stable. */
export type Values = Record<string, number | null>;

/** A streaming indicator: `push` for a new candle, `replace` for the forming one. */
export interface Study {
  /** Output names, e.g. ['upper', 'middle', 'lower']. */
  readonly lines: readonly string[];
  push(close: number): Values;
  replace(close: number): Values;
}

function single(make: () => { update(v: number, replace: boolean): number | null }, name: string): Study {
  const indicator = make();
  const read = (value: number | null): Values => ({ [name]: value });
  return {
    lines: [name],
    push: (close) => read(indicator.update(close, false)),
    replace: (close) => read(indicator.update(close, true)),
  };
}

function bollinger(): Study {
  const indicator = new BollingerBands(BOLL_PERIOD, BOLL_DEVIATIONS);
  const read = (r: { upper: number; middle: number; lower: number } | null): Values => ({
    upper: r?.upper ?? null,
    middle: r?.middle ?? null,
    lower: r?.lower ?? null,
  });
  return {
    lines: ['upper', 'middle', 'lower'],
    push: (close) => read(indicator.update(close, false)),
    replace: (close) => read(indicator.update(close, true)),
  };
}

function macd(): Study {
  const indicator = new MACD(new EMA(MACD_FAST), new EMA(MACD_SLOW), new EMA(MACD_SIGNAL));
  const read = (r: { macd: number; signal: number; histogram: number } | null): Values => ({
    macd: r?.macd ?? null,
    signal: r?.signal ?? null,
    histogram: r?.histogram ?? null,
  });
  return {
    lines: ['macd', 'signal', 'histogram'],
    push: (close) => read(indicator.update(close, false)),
    replace: (close) => read(indicator.update(close, true)),
  };
}

export function createStudy(key: IndicatorKey): Study {
  switch (key) {
    case 'ma':
      return single(() => new SMA(MA_PERIOD), 'value');
    case 'ema':
      return single(() => new EMA(EMA_PERIOD), 'value');
    case 'boll':
      return bollinger();
    case 'rsi':
      return single(() => new RSI(RSI_PERIOD), 'value');
    case 'macd':
      return macd();
  }
}
