/**
 * The signed-in user's copy trading for a page: read when the page opens (and when the user
 * changes), read again when a `copy` frame says a link started or ended (by the other side,
 * or a stop level reached: nobody is sent a frame of their own act) and after a reconnect.
 * Signed out: nothing.
 */
import { useCallback, useEffect, useState } from 'react';

import { errorMessage } from '@/lib/api-client';
import { useWsEvent } from '@/lib/ws';
import type { CopyFrame } from '@/lib/ws-frames';
import { useSession } from '@/stores/session';

import type { MyCopy } from '../api';
import { useMyCopy } from '../stores/my-copy';

export interface MyCopyView {
  signedIn: boolean;
  /** The user's UID, when known. */
  uid: number | null;
  mine: MyCopy | null;
  /** Why it could not be read (null while it loads or once read). */
  error: string | null;
  reload(): void;
}

export function useMyCopyView(): MyCopyView {
  const signedIn = useSession((s) => s.token !== null);
  const uid = useSession((s) => s.user?.uid ?? null);
  const mine = useMyCopy((s) => s.mine);
  const [error, setError] = useState<string | null>(null);

  const reload = useCallback(() => {
    if (!useSession.getState().token) return;
    setError(null);
    useMyCopy
      .getState()
      .load()
      .catch((e: unknown) => setError(errorMessage(e)));
  }, []);

  useEffect(() => {
    if (!signedIn) {
      useMyCopy.getState().reset();
      return;
    }
    reload();
  }, [signedIn, uid, reload]);

  useWsEvent<CopyFrame>('copy', reload);
  useWsEvent('resync', reload);

  return { signedIn, uid, mine: signedIn ? mine : null, error, reload };
}
