/**
 * The wallet session check (spec §4, §9): every 5 s, a wallet user's wallet must still be
 * connected with the address the account was made from; otherwise the user is signed out.
 */
import { useEffect } from 'react';

import { useSession } from '@/stores/session';

import { signOutUser } from '../session';
import { addressMatches, connectedAddress, walletOfUsername } from '../wallets';

export const WALLET_CHECK_INTERVAL_MS = 5_000;

export function useWalletSessionCheck(): void {
  const username = useSession((s) => (s.user?.loginType === 'wallet' ? s.user.username : null));
  useEffect(() => {
    if (!username) return undefined;
    const wallet = walletOfUsername(username);
    let busy = false;
    const check = async () => {
      if (busy) return;
      busy = true;
      try {
        const address = wallet ? await connectedAddress(wallet.kind) : null;
        const current = useSession.getState().user?.username;
        if (current === username && (!wallet || !address || !addressMatches(address, wallet.fragment))) {
          await signOutUser('wallet-changed');
        }
      } finally {
        busy = false;
      }
    };
    const timer = setInterval(() => void check(), WALLET_CHECK_INTERVAL_MS);
    return () => clearInterval(timer);
  }, [username]);
}
