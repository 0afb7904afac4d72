/**
 * The signed-in user: the token and user kept under the spec's keys `token` and `user`.
 * A login stores both; a logout or an expired session (a 401, a session closed by the
 * server) clears both. The app shell watches `endedBy` to go to /login with a message.
 */
import { create } from 'zustand';

import { StorageKey, readJson, readKey, writeKey } from '@/lib/storage';
import type { UserView } from '@/types/api';

/**
 * The signed-in user: the server's view of them (spec §3), with `loginType` derived here as
 * the spec says: `wallet` when the username starts with `wallet_`, else `account`.
 */
export type User = Omit<UserView, 'loginType'> & { loginType: 'wallet' | 'account' };

export type SessionEnd = 'logout' | 'expired' | 'wallet-changed';

interface SessionState {
  token: string | null;
  user: User | null;
  /** Why the last session ended, until the shell has shown it. */
  endedBy: SessionEnd | null;
  /**
   * Set while this app ends the session itself (logout, a changed wallet): the server's own
   * notice that the session ended (a 401, the socket's close) must not read as "expired".
   */
  ending: SessionEnd | null;
  signIn(token: string, user: UserView): void;
  setUser(user: UserView): void;
  beginSignOut(reason: SessionEnd): void;
  signOut(reason: SessionEnd): void;
  /** The server says the session is over: expired, unless this app is ending it. */
  expire(): void;
  acknowledgeEnd(): void;
}

/** Derived locally as the spec says: wallet users' names start with `wallet_`. */
export function loginTypeOf(username: string): 'wallet' | 'account' {
  return username.startsWith('wallet_') ? 'wallet' : 'account';
}

function storedUser(): User | null {
  const user = readJson<User>(StorageKey.user);
  return user && typeof user.username === 'string' ? { ...user, loginType: loginTypeOf(user.username) } : null;
}

export const useSession = create<SessionState>()((set, get) => ({
  token: readKey(StorageKey.token),
  user: storedUser(),
  endedBy: null,
  ending: null,
  signIn(token, user) {
    const withType = { ...user, loginType: loginTypeOf(user.username) };
    writeKey(StorageKey.token, token);
    writeKey(StorageKey.user, JSON.stringify(withType));
    set({ token, user: withType, endedBy: null, ending: null });
  },
  setUser(user) {
    const withType = { ...user, loginType: loginTypeOf(user.username) };
    writeKey(StorageKey.user, JSON.stringify(withType));
    set({ user: withType });
  },
  beginSignOut(reason) {
    set({ ending: reason });
  },
  signOut(reason) {
    writeKey(StorageKey.token, null);
    writeKey(StorageKey.user, null);
    set({ token: null, user: null, endedBy: reason, ending: null });
  },
  expire() {
    const { token, ending } = get();
    if (token && !ending) get().signOut('expired');
  },
  acknowledgeEnd() {
    set({ endedBy: null });
  },
}));

/** The token now, for code outside React. */
export function currentToken(): string | null {
  return useSession.getState().token;
}
