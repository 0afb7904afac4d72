/** Finishing and ending a session, shared by every sign-in mode and the menus. */
import { useCallback } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';

import { useSession } from '@/stores/session';
import { toast } from '@/stores/toast';

import { type LoginData, authApi } from './api';
import { rememberDevice } from './device-tokens';

/**
 * Stores the token and user (and the device token, for this account's later password
 * sign-ins), greets a new wallet user, and goes to `/` (spec §4).
 */
export function useFinishLogin() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  return useCallback(
    (data: LoginData) => {
      useSession.getState().signIn(data.token, data.user);
      rememberDevice('user', data.user.username, data.deviceToken);
      if (data.isNewUser && data.user.username.startsWith('wallet_')) toast.success(t('auth.wallet.newUser'));
      navigate('/', { replace: true });
    },
    [navigate, t],
  );
}

/**
 * Ends the session on the server, then here (even when the server cannot be reached). The
 * device token stays: it proves this browser, not the session.
 */
export async function signOutUser(reason: 'logout' | 'wallet-changed' = 'logout'): Promise<void> {
  const session = useSession.getState();
  if (!session.token) return;
  // The server closes this session's sockets as it ends it: that is this sign-out, not an expiry.
  session.beginSignOut(reason);
  try {
    await authApi.logout();
  } catch {
    // Signed out here regardless; the server's session expires on its own.
  }
  if (useSession.getState().token) useSession.getState().signOut(reason);
}
