/**
 * The back-office's instance of the one websocket client (lib/ws-client.ts): the same
 * protocol, reconnect policy (5 attempts 5000 ms apart, then a manual retry) and clock, but
 * authenticated with the admin's token by `adminAuth`, after which the server sends every
 * contract's changes as `adminTrade` frames. Only back-office pages import this module, so the
 * trader's pages never load it; it connects only while a page that needs it is open.
 */
import { useSyncExternalStore } from 'react';

import { requestLanguage } from './i18n';
import { type WsAuth, WsClient, socketUrl } from './ws-client';

export const ADMIN_AUTH: WsAuth = { op: 'adminAuth', authenticated: 'adminAuthenticated' };

export const adminWs = new WsClient({ url: () => socketUrl(requestLanguage()), auth: ADMIN_AUTH });

/** The back-office connection's state, re-rendering on every change. */
export function useAdminConnectionStatus() {
  return useSyncExternalStore(adminWs.onStatus, adminWs.getStatus);
}
