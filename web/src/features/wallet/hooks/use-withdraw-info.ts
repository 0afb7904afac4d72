/**
 * What the withdrawal and the transfer dialogs both read each time they open: the withdraw info
 * (the limits, the available balance, the saved addresses, whether the 2FA code is asked for)
 * and, from it, whether money is blocked from leaving (the 24 h after a password change).
 */
import { useEffect, useEffectEvent, useState } from 'react';

import { errorMessage } from '@/lib/api-client';

import { type WithdrawInfo, walletApi } from '../api';

/** True while the block after a password change lasts. */
export function isBlocked(info: WithdrawInfo | null): boolean {
  const until = info?.blockedUntil ?? null;
  return until !== null && until > Date.now();
}

/**
 * Loads the withdraw info when `open` turns true (and on `reload`, the error state's retry);
 * `onLoaded` hears each answer (the withdrawal picks its address from it).
 */
export function useWithdrawInfo(open: boolean, onLoaded?: (info: WithdrawInfo) => void) {
  const [info, setInfo] = useState<WithdrawInfo | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);

  const reload = () => {
    setLoadError(null);
    walletApi.withdrawInfo().then(
      (answer) => {
        setInfo(answer);
        onLoaded?.(answer);
      },
      (e: unknown) => setLoadError(errorMessage(e)),
    );
  };
  // Opening is the reason to read it; what `reload` reads is not.
  const load = useEffectEvent(reload);
  useEffect(() => {
    if (open) load();
  }, [open]);

  return { info, setInfo, loadError, reload, blocked: isBlocked(info) };
}
