/**
 * The local-storage keys of the spec (§9), exactly as it names them, and small typed
 * accessors. Nothing else in the app writes to local storage.
 */
export const StorageKey = {
  token: 'token',
  user: 'user',
  locale: 'locale',
  language: 'language',
  adminToken: 'admin_token',
  adminInfo: 'admin_info',
  lastVisitedStock: 'lastVisitedStock',
  notificationSound: 'notificationSound',
  /** Beyond the spec: the time of the newest system notice already shown as a modal. */
  noticeSeen: 'noticeSeen',
  /** Beyond the spec: per UID, the newest fired price alert already in the notification centre. */
  priceAlertsSeen: 'priceAlertsSeen',
  /** Beyond the spec: per UID, the newest security event already in the notification centre. */
  securityEventsSeen: 'securityEventsSeen',
  /** Beyond the spec: per UID, the time of the newest copy trading note already in the notification centre. */
  copyNotesSeen: 'copyNotesSeen',
  /** Beyond the spec: the device tokens of the users who signed in on this browser, newest first. */
  deviceTokens: 'deviceTokens',
  /** Beyond the spec: the same for the admins, kept apart from the users'. */
  adminDeviceTokens: 'adminDeviceTokens',
  /** Beyond the spec: the form the price chart was last shown in on this device. */
  chartType: 'chartType',
  /** Beyond the spec: the lines and zones drawn on the price chart, per symbol. */
  chartDrawings: 'chartDrawings',
} as const;

export type StorageKeyName = (typeof StorageKey)[keyof typeof StorageKey];

/** Reads a key; private browsing or a full quota must never break the app. */
export function readKey(key: StorageKeyName): string | null {
  try {
    return window.localStorage.getItem(key);
  } catch {
    return null;
  }
}

/** Writes a key, or removes it for `null`. */
export function writeKey(key: StorageKeyName, value: string | null): void {
  try {
    if (value === null) window.localStorage.removeItem(key);
    else window.localStorage.setItem(key, value);
  } catch {
    // Storage unavailable: the value lives for this page only.
  }
}

/** Reads a JSON value, or `null` when absent or unreadable. */
export function readJson<T>(key: StorageKeyName): T | null {
  const raw = readKey(key);
  if (raw === null) return null;
  try {
    return JSON.parse(raw) as T;
  } catch {
    return null;
  }
}
