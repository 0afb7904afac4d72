/**
 * Route guards and redirects of the spec's route table (§2), as loaders so that a redirect
 * happens before a screen's code is even fetched.
 */
import { redirect } from 'react-router';

import { StorageKey, readKey, writeKey } from '@/lib/storage';
import { useSession } from '@/stores/session';

export const DEFAULT_SYMBOL = 'BTCUSDT';

/** `/account` and `/contract-record`: a user token, else `/login`. */
export function requireUser() {
  if (!useSession.getState().token) throw redirect('/login');
  return null;
}

/** `/login` and `/login/register`: a signed-in user goes to `/stocks`. */
export function guestOnly() {
  if (useSession.getState().token) throw redirect('/stocks');
  return null;
}

/** The last visited pair (default BTCUSDT). */
export function lastVisitedSymbol(): string {
  const stored = readKey(StorageKey.lastVisitedStock);
  return stored && /^[A-Z0-9]{2,20}$/.test(stored) ? stored : DEFAULT_SYMBOL;
}

/** `/trade` goes to the last visited pair. */
export function toLastVisited() {
  throw redirect(`/trade/${lastVisitedSymbol()}`);
}

/**
 * `/trade/{code}`: a slash inside the code is removed (`/trade/BTC/USDT` -> `/trade/BTCUSDT`),
 * a missing code goes to BTCUSDT, and the code is remembered as the last visited.
 */
export function tradeCode({ params }: { params: Record<string, string | undefined> }) {
  const raw = params['*'] ?? '';
  const code = raw.replace(/\//g, '').toUpperCase();
  if (!code) throw redirect(`/trade/${DEFAULT_SYMBOL}`);
  if (code !== raw) throw redirect(`/trade/${encodeURIComponent(code)}`);
  if (/^[A-Z0-9]{2,20}$/.test(code)) writeKey(StorageKey.lastVisitedStock, code);
  return null;
}
