/**
 * Turns the websocket's private stream into notifications (spec §9): settlements (a win is
 * high priority, a loss medium), deposit and withdrawal decisions (high), price alerts (high),
 * other balance changes and system notices (low; only those for the app's language, and
 * removed again when an admin withdraws one). Each new one plays the tone when sound is
 * on, and high priority ones also show on the desktop when permitted.
 *
 * Price alerts that fired while the app was closed are read from the server each time the
 * private stream is authenticated (after sign-in and every reconnect): those newer than the
 * newest one already shown on this browser (or, the first time, from the last 24 hours).
 *
 * Copy trading (trade notifications): a follower is told when their copying of a trader ended
 * without their asking (stop level reached, the trader stopped sharing or removed them) and when
 * a copy of the trader's order was refused; a leader when someone starts or stops copying them.
 * The server sends nobody their own acts, so every note received is told. Live from the `copy`
 * and `copy.refused` frames, and caught up from the copy notes the server keeps (the same rows)
 * on each authentication as price alerts are; a note is one notification however often it is
 * received (its id is the note's).
 *
 * Security events (too many wrong authenticator codes paused the account's two-factor
 * actions) are high priority and always announced, whatever the switches say: live from the
 * `security` frame, and caught up from the security history on each authentication as price
 * alerts are.
 */
import { useEffect, useEffectEvent } from 'react';
import { useTranslation } from 'react-i18next';

import { api } from '@/lib/api';
import type { Page } from '@/lib/api-client';
import { StorageKey, readJson, writeKey } from '@/lib/storage';
import { useConnectionStatus, useWsEvent } from '@/lib/ws';
import type {
  BalanceFrame,
  CopyFrame,
  CopyRefusedFrame,
  NoticeFrame,
  NoticeWithdrawnFrame,
  OrderDecisionFrame,
  PriceAlertFrame,
  SecurityFrame,
  SettledFrame,
} from '@/lib/ws-frames';
import { useSession } from '@/stores/session';
import type { CopyNoteRow, PriceAlert, SecurityRow } from '@/types/api';

import { playTone, showDesktop } from '../alerts';
import { loadCopyNotes } from '../copy-texts';
import type { StoredNotification } from '../db';
import { noticeIsFor, noticeItemId, noticeNotification } from '../notices';
import { displayParams } from '../params';
import { useNotifications } from '../stores/notifications';
import { type NotificationSettings, usePreferences } from '../stores/preferences';

/**
 * An event of the user's security history, live (`security` frame) or from the list:
 * `twoFactorLocked` is a pause of two-factor actions after `failures` wrong codes in a row,
 * from `time` to `until` (ms; also the event's id).
 */
export type SecurityEvent = SecurityRow;

/** Fired alerts, security events and copy notes read back on each authentication, and the first time how far back. */
const CATCH_UP = 20;
const FIRST_WINDOW_MS = 24 * 60 * 60 * 1000;
/** UIDs remembered in `priceAlertsSeen`, `securityEventsSeen` and `copyNotesSeen` (people sharing a browser). */
const SEEN_USERS_MAX = 20;

/** The notification of a fired price alert, live (`priceAlert` frame) or from the fired list. */
export function alertNotification(a: PriceAlert): StoredNotification {
  const price = a.firedPrice ?? a.price;
  return {
    id: `alert-${a.id}`,
    type: 'trade',
    priority: 'high',
    titleKey: 'notifications.priceAlert.title',
    messageKey: `notifications.priceAlert.${a.direction}`,
    params: { symbol: a.symbol, price, level: a.price },
    time: a.firedAt ?? Date.now(),
    read: false,
    data: { symbol: a.symbol, price },
  };
}

/** The notification of a security event, or null for a kind this app does not know. */
export function securityNotification(e: SecurityEvent): StoredNotification | null {
  if (e.kind !== 'twoFactorLocked') return null;
  return {
    id: `security-${e.until}`,
    type: 'system',
    priority: 'high',
    titleKey: 'notifications.security.twoFactorLocked',
    messageKey: 'notifications.security.twoFactorLockedMessage',
    // Put into words when shown, in the language of that moment.
    params: { until: e.until, failures: e.failures },
    time: e.time,
    read: false,
  };
}

type SeenKey = typeof StorageKey.priceAlertsSeen | typeof StorageKey.securityEventsSeen | typeof StorageKey.copyNotesSeen;

/** Per UID, the newest item of a kind already announced on this browser. */
function seenOf(key: SeenKey): Record<string, number> {
  return readJson<Record<string, number>>(key) ?? {};
}

function markSeen(key: SeenKey, uid: number, id: number): void {
  const seen = seenOf(key);
  seen[uid] = Math.max(seen[uid] ?? 0, id);
  const kept = Object.entries(seen).sort((a, b) => b[1] - a[1]).slice(0, SEEN_USERS_MAX);
  writeKey(key, JSON.stringify(Object.fromEntries(kept)));
}

/** Bills already announced by their own notification (settlements, decisions). */
const QUIET_BILLS = new Set(['profit', 'loss', 'fee', 'refund', 'sale', 'deposit', 'withdraw', 'tournament_fee']);

/**
 * A settlement in words: profit, loss, tie or void with the result's size, or a contract sold
 * back before expiry ("Sold early") with what the sale paid.
 */
export function settlementNotification(
  f: Pick<SettledFrame, 'contractId' | 'symbol' | 'outcome' | 'result' | 'amount' | 'profit' | 'exitPrice' | 'settledAt'> & Partial<Pick<SettledFrame, 'credited'>>,
): StoredNotification {
  const sold = f.outcome === 'sold';
  const kind = sold ? 'sold' : f.outcome.startsWith('void') ? 'void' : f.result;
  return {
    id: `settled-${f.contractId}`,
    type: 'trade',
    // A sale is the trader's own act, announced where it was made: no desktop notification.
    priority: sold ? 'medium' : f.result === 'profit' ? 'high' : f.result === 'loss' ? 'medium' : 'low',
    titleKey: `notifications.settled.${kind}`,
    messageKey: 'notifications.settledMessage',
    params: { symbol: f.symbol, amount: sold ? (f.credited ?? f.amount) : f.amount, id: f.contractId },
    time: f.settledAt,
    read: false,
    data: { symbol: f.symbol, price: f.exitPrice ?? undefined, amount: f.amount, profit: f.profit },
  };
}

export function useNotificationFeed(): void {
  const { t, i18n } = useTranslation();
  const signedIn = useSession((s) => s.token !== null);
  const uid = useSession((s) => s.user?.uid ?? null);
  const authenticated = useConnectionStatus().authenticated;

  useEffect(() => {
    void useNotifications.getState().load();
  }, []);

  // The user's switches for trade and system notifications, read at sign-in.
  useEffect(() => {
    if (signedIn) usePreferences.getState().load().catch(() => undefined);
    else usePreferences.getState().reset();
  }, [signedIn]);

  /** `setting: null`: announced whatever the switches say (security). */
  const announce = (item: StoredNotification, setting: keyof NotificationSettings | null = item.type, sound = true) => {
    if (!signedIn) return;
    // Notifications the user turned off are neither kept nor sounded.
    if (setting !== null && !usePreferences.getState().settings[setting]) return;
    if (useNotifications.getState().items.some((n) => n.id === item.id)) return;
    void useNotifications.getState().add(item);
    if (sound && useNotifications.getState().sound) playTone();
    if (item.priority === 'high') {
      const params = displayParams(item.params, t, i18n.language);
      showDesktop(item.title ?? t(item.titleKey ?? ''), item.message ?? t(item.messageKey ?? '', params));
    }
  };

  useWsEvent<SettledFrame>('order.settled', (f) => announce(settlementNotification(f.data)));
  // Copy trading's notifications and their texts (the `copy` section) are loaded with the first
  // note, not with every page. A note is the row the catch-up reads back: marked seen by its time.
  const announceCopy = ({ data }: { data: CopyNoteRow }) => {
    if (uid === null) return;
    markSeen(StorageKey.copyNotesSeen, uid, data.time);
    loadCopyNotes()
      .then((notes) => {
        const item = notes.copyNoteNotification(data, uid);
        if (item) announce(item);
      })
      .catch(() => undefined);
  };
  useWsEvent<CopyFrame>('copy', announceCopy);
  useWsEvent<CopyRefusedFrame>('copy.refused', announceCopy);
  useWsEvent<PriceAlertFrame>('priceAlert', ({ data }) => {
    announce(alertNotification(data), 'priceAlerts');
    if (uid !== null) markSeen(StorageKey.priceAlertsSeen, uid, data.id);
  });
  useWsEvent<SecurityFrame>('security', ({ data }) => {
    const item = securityNotification(data);
    if (item) announce(item, null);
    if (uid !== null) markSeen(StorageKey.securityEventsSeen, uid, data.until);
  });

  // The catch-up below announces with the hook's values of the moment its answers come; they
  // are not a reason to ask again (only a new sign-in or connection is).
  const announceMissed = useEffectEvent(announce);

  useEffect(() => {
    if (!authenticated || uid === null) return undefined;
    let stale = false;
    api
      .get<Page<PriceAlert>>('/user/price-alerts/fired', { query: { page: 1, pageSize: CATCH_UP } })
      .then(({ items }) => {
        if (stale) return;
        const seen = seenOf(StorageKey.priceAlertsSeen)[uid];
        const since = Date.now() - FIRST_WINDOW_MS;
        const missed = items.filter((a) => (seen === undefined ? (a.firedAt ?? 0) >= since : a.id > seen)).reverse();
        // One tone for the lot, on the newest.
        missed.forEach((a, i) => announceMissed(alertNotification(a), 'priceAlerts', i === missed.length - 1));
        if (items[0]) markSeen(StorageKey.priceAlertsSeen, uid, items[0].id);
      })
      .catch(() => undefined);
    // Security events the same way, newest first, by the end of the pause (their id).
    api
      .get<Page<SecurityEvent>>('/user/security-events', { query: { page: 1, pageSize: CATCH_UP } })
      .then(({ items }) => {
        if (stale) return;
        const seen = seenOf(StorageKey.securityEventsSeen)[uid];
        const since = Date.now() - FIRST_WINDOW_MS;
        const missed = items.filter((e) => (seen === undefined ? e.time >= since : e.until > seen)).reverse();
        missed.forEach((e, i) => {
          const item = securityNotification(e);
          if (item) announceMissed(item, null, i === missed.length - 1);
        });
        if (items[0]) markSeen(StorageKey.securityEventsSeen, uid, items[0].until);
      })
      .catch(() => undefined);
    // Copy notes the same way, newest first, by their time; their texts are loaded only when
    // there is one to tell.
    api
      .get<Page<CopyNoteRow>>('/copy/notes', { query: { page: 1, pageSize: CATCH_UP } })
      .then(async ({ items }) => {
        if (stale) return;
        const seen = seenOf(StorageKey.copyNotesSeen)[uid];
        const since = Date.now() - FIRST_WINDOW_MS;
        const missed = items.filter((n) => (seen === undefined ? n.time >= since : n.time > seen)).reverse();
        if (missed.length > 0) {
          const notes = await loadCopyNotes();
          if (stale) return;
          const told = missed.map((n) => notes.copyNoteNotification(n, uid)).filter((n) => n !== null);
          told.forEach((item, i) => announceMissed(item, 'trade', i === told.length - 1));
        }
        if (items[0]) markSeen(StorageKey.copyNotesSeen, uid, items[0].time);
      })
      .catch(() => undefined);
    return () => {
      stale = true;
    };
  }, [authenticated, uid]);
  useWsEvent<OrderDecisionFrame>('notification', ({ data }) =>
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
  // A notice for another language is not this user's; a withdrawn one leaves the centre.
  useWsEvent<NoticeFrame>('notice', ({ data }) => {
    if (noticeIsFor(data, i18n.language)) announce(noticeNotification(data));
  });
  useWsEvent<NoticeWithdrawnFrame>('noticeWithdrawn', ({ data }) => void useNotifications.getState().remove(noticeItemId(data.id)));
}
