/**
 * What the trader's shell does in the background while it is mounted:
 * - the websocket: connected, told the token, online/offline followed; a session closed by
 *   the server ends the session here;
 * - the wallets: loaded at sign-in, after every reconnect and route change, moved by
 *   `balance` frames, which also fire the spec's `userBalanceUpdate` event;
 * - user info refreshed on each route change and on `userBalanceUpdate` (spec §4).
 */
import { useEffect } from 'react';
import { useLocation } from 'react-router';

import { api } from '@/lib/api';
import { ws } from '@/lib/ws';
import type { BalanceFrame } from '@/lib/ws-frames';
import { type User, useSession } from '@/stores/session';
import { useWallet } from '@/stores/wallet';
import type { Schemas } from '@/types/api';

export const USER_BALANCE_UPDATE = 'userBalanceUpdate';

type LayoutUser = Schemas['LayoutUser'];

async function refreshUserInfo(): Promise<void> {
  if (!useSession.getState().token) return;
  try {
    const info = await api.get<LayoutUser>('/layout/user-info');
    const { user, setUser } = useSession.getState();
    if (user && (user.username !== info.username || user.avatar !== info.avatar)) {
      setUser({ ...user, username: info.username, avatar: info.avatar } as User);
    }
  } catch {
    // A 401 ended the session in the API client; other failures keep the cached user.
  }
}

function refreshWallets(): void {
  if (!useSession.getState().token) return;
  useWallet
    .getState()
    .load()
    .catch(() => undefined);
}

function endSession(): void {
  useSession.getState().expire();
}

/** The socket's listeners live as long as the page: the shell may unmount and mount again. */
let started = false;
function startSocket(): void {
  if (started) return;
  started = true;
  ws.attachBrowserEvents(window);
  ws.on('resync', refreshWallets);
  ws.on('session-ended', endSession);
  ws.on('auth-failed', endSession);
  ws.on<BalanceFrame>('balance', (frame) => {
    useWallet.getState().applyFrame(frame.data);
    window.dispatchEvent(new CustomEvent(USER_BALANCE_UPDATE, { detail: frame.data }));
  });
  window.addEventListener(USER_BALANCE_UPDATE, () => void refreshUserInfo());
  ws.connect();
}

export function useShellEffects(): void {
  const { pathname } = useLocation();
  const token = useSession((s) => s.token);

  useEffect(startSocket, []);

  useEffect(() => {
    ws.setToken(token);
    if (!token) useWallet.getState().clear();
  }, [token]);

  useEffect(() => {
    void refreshUserInfo();
    refreshWallets();
  }, [pathname, token]);
}
