/** Sums of daily figures, as decimal strings for money (never floats). */
import { sum } from '@/lib/decimal';

import type { Day } from './api';

export type DayMetric = 'turnover' | 'houseResult' | 'depositAmount' | 'withdrawalAmount' | 'registrations' | 'contracts';

export const DAY_METRICS: readonly DayMetric[] = ['turnover', 'houseResult', 'depositAmount', 'withdrawalAmount', 'registrations', 'contracts'];

/** Metrics in USDT (the others are counts). */
export const MONEY_METRICS: ReadonlySet<DayMetric> = new Set(['turnover', 'houseResult', 'depositAmount', 'withdrawalAmount']);

/** The sum of `days` as one day's figures (`day` is the first day's). */
export function sumDays(days: readonly Day[]): Day {
  const money = (key: 'depositAmount' | 'withdrawalAmount' | 'turnover' | 'fees' | 'houseResult') => sum(days.map((d) => d[key]));
  const count = (key: 'registrations' | 'logins' | 'deposits' | 'withdrawals' | 'contracts' | 'settled') => days.reduce((total, d) => total + d[key], 0);
  return {
    day: days[0]?.day ?? 0,
    registrations: count('registrations'),
    logins: count('logins'),
    deposits: count('deposits'),
    depositAmount: money('depositAmount'),
    withdrawals: count('withdrawals'),
    withdrawalAmount: money('withdrawalAmount'),
    contracts: count('contracts'),
    turnover: money('turnover'),
    fees: money('fees'),
    settled: count('settled'),
    houseResult: money('houseResult'),
  };
}

/** A day's value of `metric` as a number, for the chart only (display, never arithmetic). */
export function chartValue(day: Day, metric: DayMetric): number {
  return Number(day[metric]);
}
