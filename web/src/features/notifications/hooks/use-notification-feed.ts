/**
 * Turns the websocket's private stream into notifications (spec §9): settlements (a win is
 * high priority, a loss medium), deposit and withdrawal decisions (high), other balance
 * changes and system notices (low). Each new one plays the tone when sound is on, and high
 * priority ones also show on the desktop when permitted.
 */
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';

import { formatMoney } from '@/lib/format';
import { useWsEvent } from '@/lib/ws';
import { useSession } from '@/stores/session';

import { playTone, showDesktop } from '../alerts';
import type { StoredNotification } from '../db';
import { useNotifications } from '../stores/notifications';
import { usePreferences } from '../stores/preferences';

interface SettledFrame {
  contractId: number;
  symbol: string;
  outcome: string;
  result: 'profit' | 'loss' | 'even';
  amount: string;
  profit: string;
  exitPrice: string | null;
  settledAt: number;
}

interface BalanceFrame {
  account: string;
  change: 'increase' | 'decrease' | 'unchanged';
  amount: string;
  bill: string | null;
  balance: string;
  reference: number;
}

interface DecisionFrame {
  kind: 'deposit' | 'withdrawal';
  order: number;
  approved: boolean;
  /** processing (a withdrawal approved, being paid out), completed, rejected or failed. */
  status: 'processing' | 'completed' | 'rejected' | 'failed';
  remark: string;
}

interface NoticeFrame {
  title: string;
  body: string;
  time: number;
}

/** Bills already announced by their own notification (settlements, decisions). */
const QUIET_BILLS = new Set(['profit', 'loss', 'fee', 'refund', 'deposit', 'withdraw']);

export function settlementNotification(f: SettledFrame): StoredNotification {
  const kind = f.outcome.startsWith('void') ? 'void' : f.result;
  return {
    id: `settled-${f.contractId}`,
    type: 'trade',
    priority: f.result === 'profit' ? 'high' : f.result === 'loss' ? 'medium' : 'low',
    titleKey: `notifications.settled.${kind}`,
    messageKey: 'notifications.settledMessage',
    params: { symbol: f.symbol, amount: f.amount, id: f.contractId },
    time: f.settledAt,
    read: false,
    data: { symbol: f.symbol, price: f.exitPrice ?? undefined, amount: f.amount, profit: f.profit },
  };
}

export function useNotificationFeed(): void {
  const { t, i18n } = useTranslation();
  const signedIn = useSession((s) => s.token !== null);

  useEffect(() => {
    void useNotifications.getState().load();
  }, []);

  // The user's switches for trade and system notifications, read at sign-in.
  useEffect(() => {
    if (signedIn) usePreferences.getState().load().catch(() => undefined);
    else usePreferences.getState().reset();
  }, [signedIn]);

  const announce = (item: StoredNotification) => {
    if (!signedIn) return;
    // Trade and system notifications the user turned off are neither kept nor sounded.
    if (!usePreferences.getState().settings[item.type]) return;
    void useNotifications.getState().add(item);
    if (useNotifications.getState().sound) playTone();
    if (item.priority === 'high') {
      const params = { ...item.params, amount: formatMoney(String(item.params?.amount ?? '0'), i18n.language) };
      showDesktop(item.title ?? t(item.titleKey ?? ''), item.message ?? t(item.messageKey ?? '', params));
    }
  };

  useWsEvent<SettledFrame>('order.settled', (f) => announce(settlementNotification(f.data)));
  useWsEvent<DecisionFrame>('notification', ({ data }) =>
    announce({
      id: `${data.kind}-${data.order}-${data.status}`,
      type: 'system',
      priority: 'high',
      titleKey: `notifications.${data.kind}.${data.status}`,
      messageKey: data.remark ? 'notifications.orderRemark' : 'notifications.order',
      params: { order: data.order, remark: data.remark },
      time: Date.now(),
      read: false,
    }),
  );
  useWsEvent<BalanceFrame>('balance', ({ data }) => {
    if (data.change === 'unchanged' || !data.bill || QUIET_BILLS.has(data.bill)) return;
    announce({
      id: `balance-${data.bill}-${data.reference}-${data.account}-${data.balance}`,
      type: 'system',
      priority: 'low',
      titleKey: `notifications.balance.${data.change}`,
      messageKey: 'notifications.balanceMessage',
      params: { amount: data.amount, balance: data.balance, bill: data.bill, account: data.account },
      time: Date.now(),
      read: false,
    });
  });
  useWsEvent<NoticeFrame>('notice', ({ data }) =>
    announce({
      id: `notice-${data.time}`,
      type: 'system',
      priority: 'low',
      title: data.title,
      message: data.body,
      time: data.time,
      read: false,
    }),
  );
}
