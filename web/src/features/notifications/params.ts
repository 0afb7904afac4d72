/**
 * A notification keeps its raw values (decimal strings, times in ms, bill and account codes)
 * and is put into words when shown, in the language of that moment: the centre's list and the
 * desktop notification both read it through here.
 */
import { formatDateTime, formatMoney } from '@/lib/format';

import type { StoredNotification } from './db';

type Translate = (key: string, options?: Record<string, unknown>) => string;

const MONEY = ['amount', 'balance', 'profit'] as const;
/** Times in ms, shown as a date and time. */
const TIMES = ['until'] as const;

export function displayParams(params: StoredNotification['params'], t: Translate, language: string): Record<string, unknown> {
  const shown: Record<string, unknown> = { ...params };
  for (const key of MONEY) {
    if (shown[key] !== undefined) shown[key] = formatMoney(String(shown[key]), language);
  }
  for (const key of TIMES) {
    if (typeof shown[key] === 'number') shown[key] = formatDateTime(shown[key], language);
  }
  if (typeof shown.bill === 'string') shown.bill = t(`notifications.bills.${shown.bill}`);
  if (typeof shown.account === 'string') shown.account = t(`header.${shown.account}`);
  // A refusal's error code (copy trading): its reason in words, or the code itself for one this app does not know.
  if (typeof shown.refusal === 'string') {
    const other = t('copyTrading.notify.reasons.other', { code: shown.refusal });
    shown.refusal = /^[A-Z][A-Z0-9_]*$/.test(shown.refusal) ? t(`copyTrading.notify.reasons.${shown.refusal}`, { defaultValue: other }) : other;
  }
  return shown;
}
