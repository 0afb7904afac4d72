import { beforeEach } from 'vitest';

import { type User, loginTypeOf, useSession } from './session';

const USER = { uid: 1, username: 'wallet_eth_ab12', nickname: '' } as User;

beforeEach(() => useSession.setState({ token: null, user: null, endedBy: null, ending: null }));

test('a sign-in stores the token and user under the spec keys; the login type is derived', () => {
  useSession.getState().signIn('tok', USER);
  expect(window.localStorage.getItem('token')).toBe('tok');
  expect(JSON.parse(window.localStorage.getItem('user')!)).toMatchObject({ username: 'wallet_eth_ab12', loginType: 'wallet' });
  expect(loginTypeOf('alice')).toBe('account');
});

test('the server ending the session is an expiry, unless this app is signing out', () => {
  const session = useSession.getState();
  session.signIn('tok', USER);
  session.expire();
  expect(useSession.getState()).toMatchObject({ token: null, endedBy: 'expired' });
  expect(window.localStorage.getItem('token')).toBeNull();

  session.signIn('tok', USER);
  session.beginSignOut('logout');
  session.expire(); // the socket closed by our own logout
  expect(useSession.getState().token).toBe('tok');
  session.signOut('logout');
  expect(useSession.getState()).toMatchObject({ token: null, endedBy: 'logout', ending: null });
});
