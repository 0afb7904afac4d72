/**
 * The back-office's live trades: while the page is open, the admin websocket (lib/admin-ws.ts)
 * is connected with the admin's token. Each time the server accepts it (the first time and
 * after every reconnect) `onLive` runs, so the page reads its list again over HTTP: frames
 * sent while the line was down, or before it was authenticated, are never assumed. A session
 * the server ends, or a token it refuses, ends the admin session (back to the sign-in); a
 * refusal for another reason (a role without trades) stops the live updates and says why.
 */
import { useEffect, useLayoutEffect, useRef, useState } from 'react';

import { ADMIN_AUTH, adminWs, useAdminConnectionStatus } from '@/lib/admin-ws';
import type { AdminTradeFrame, ErrorFrame } from '@/lib/ws-frames';
import { useAdminSession } from '@/stores/admin-session';

/** Refusals that mean the admin's session is over. */
const SESSION_OVER = new Set(['UNAUTHORIZED', 'SESSION_EXPIRED']);

interface Handlers {
  onFrame(frame: AdminTradeFrame): void;
  onLive(): void;
}

export function useLiveTrades(handlers: Handlers) {
  const token = useAdminSession((s) => s.token);
  const status = useAdminConnectionStatus();
  /** The server's reason for refusing the live stream, if it did. */
  const [refused, setRefused] = useState<string | null>(null);
  const latest = useRef(handlers);
  useLayoutEffect(() => {
    latest.current = handlers;
  });

  useEffect(() => {
    if (!token) return undefined;
    setRefused(null);
    adminWs.setToken(token);
    const offs = [
      adminWs.on<AdminTradeFrame>('adminTrade', (frame) => latest.current.onFrame(frame.data)),
      adminWs.on(ADMIN_AUTH.authenticated, () => latest.current.onLive()),
      adminWs.on('session-ended', () => {
        adminWs.disconnect();
        useAdminSession.getState().expire();
      }),
      adminWs.on<ErrorFrame>('auth-failed', ({ data }) => {
        adminWs.disconnect();
        if (SESSION_OVER.has(data?.code ?? '')) useAdminSession.getState().expire();
        else setRefused(data?.message || data?.code || '');
      }),
    ];
    const detach = adminWs.attachBrowserEvents(window);
    adminWs.connect();
    return () => {
      for (const off of offs) off();
      detach();
      adminWs.disconnect();
      adminWs.setToken(null);
    };
  }, [token]);

  const retry = () => {
    setRefused(null);
    adminWs.retry();
  };
  return { status, refused, retry };
}
