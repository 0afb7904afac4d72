import { act, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, vi } from 'vitest';

import { useSession } from '@/stores/session';
import { useSite } from '@/stores/site';
import { mockApi } from '@/testing/api';
import { siteInfo, testUser } from '@/testing/fixtures';
import { renderAt } from '@/testing/render';

import { signOutUser } from '../session';
import { AuthPage } from './auth-page';

const USER = testUser();

beforeEach(() => {
  useSession.setState({ token: null, user: null, endedBy: null });
  useSite.setState({ info: siteInfo() });
});

afterEach(() => {
  vi.unstubAllGlobals();
  vi.useRealTimers();
});

test('account login: the §5 rules, the server message on failure, then the token is stored', async () => {
  let refuse = true;
  const api = mockApi({
    'POST /api/login/login': () =>
      refuse ? { status: 400, code: 'INVALID_CREDENTIALS', message: 'Incorrect username or password' } : { data: { token: 'tok-1', user: USER, isNewUser: false, expiresAt: 0 } },
  });
  const { user, router } = renderAt(<AuthPage tab="login" />, { path: '/login', route: '/login' });
  const login = () => screen.getByRole('button', { name: 'Login' });
  await user.click(login());
  expect(screen.getByText('Please enter your username')).toBeInTheDocument();
  expect(screen.getByText('Please enter your password')).toBeInTheDocument();
  await user.type(screen.getByLabelText('Username'), 'al');
  await user.type(screen.getByLabelText('Password'), '12345');
  await user.click(login());
  expect(screen.getByText('Username must be 3-20 characters')).toBeInTheDocument();
  expect(screen.getByText('Password must be at least 6 characters')).toBeInTheDocument();
  expect(api.calls).toEqual([]);

  await user.type(screen.getByLabelText('Username'), 'ice_1');
  await user.type(screen.getByLabelText('Password'), '6');
  await user.click(screen.getByLabelText('Remember me'));
  await user.click(login());
  expect(await screen.findByText('Incorrect username or password')).toBeInTheDocument();
  expect(api.calls[0]!.body).toEqual({ username: 'alice_1', password: '123456', remember: true });

  refuse = false;
  await user.click(login());
  await vi.waitFor(() => expect(router.state.location.pathname).toBe('/'));
  expect(window.localStorage.getItem('token')).toBe('tok-1');
  expect(JSON.parse(window.localStorage.getItem('user')!)).toMatchObject({ username: 'alice_1', loginType: 'account' });
});

test('an account with 2FA is asked for the authenticator code', async () => {
  mockApi({ 'POST /api/login/login': () => ({ status: 400, code: 'TOTP_REQUIRED', message: 'Enter the code from your authenticator app' }) });
  const { user } = renderAt(<AuthPage tab="login" />, { path: '/login', route: '/login' });
  await user.type(screen.getByLabelText('Username'), 'alice_1');
  await user.type(screen.getByLabelText('Password'), '123456');
  await user.click(screen.getByRole('button', { name: 'Login' }));
  expect(await screen.findByLabelText('Authenticator code')).toBeInTheDocument();
});

test('e-mail login: the e-mail is checked before a code is sent; the button counts down 60 s', async () => {
  vi.useFakeTimers({ shouldAdvanceTime: true, toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date"] });
  let sendFails = false;
  const api = mockApi({
    'POST /api/login/send-code': () => (sendFails ? { status: 502, code: 'EMAIL_SEND_FAILED', message: 'Failed to send verification code' } : { data: { resendAfter: 60 } }),
  });
  const { user } = renderAt(<AuthPage tab="login" />, { path: '/login', route: '/login', advanceTimers: vi.advanceTimersByTime });
  await user.click(await screen.findByRole('tab', { name: 'E-mail' }));
  const send = await screen.findByRole('button', { name: 'Send code' });
  await user.click(send);
  expect(screen.getByText('Please enter your e-mail')).toBeInTheDocument();
  expect(api.calls).toEqual([]);

  await user.type(screen.getByLabelText('E-mail'), 'alice@example.com');
  await user.click(send);
  expect(await screen.findByRole('button', { name: 'Resend in 60 seconds' })).toBeDisabled();
  await act(() => vi.advanceTimersByTimeAsync(1_000));
  expect(screen.getByRole('button', { name: 'Resend in 59 seconds' })).toBeDisabled();
  await act(() => vi.advanceTimersByTimeAsync(59_000));
  expect(screen.getByRole('button', { name: 'Send code' })).toBeEnabled();
  expect(api.count('POST /api/login/send-code')).toBe(1);

  sendFails = true;
  await user.click(screen.getByRole('button', { name: 'Send code' }));
  expect(await screen.findByText('Failed to send verification code')).toBeInTheDocument();
  expect(screen.getByRole('button', { name: 'Send code' })).toBeEnabled();
});

test('e-mail login: the code must be 6 digits', async () => {
  mockApi({});
  const { user } = renderAt(<AuthPage tab="login" />, { path: '/login', route: '/login' });
  await user.click(await screen.findByRole('tab', { name: 'E-mail' }));
  await user.type(await screen.findByLabelText('E-mail'), 'bad@');
  await user.type(screen.getByLabelText('Verification code'), '12a');
  await user.click(screen.getByRole('button', { name: 'Login' }));
  expect(screen.getByText('Please enter a valid e-mail address')).toBeInTheDocument();
  expect(screen.getByText('The verification code must be 6 digits')).toBeInTheDocument();
});

test('forgot password: verify the e-mail, then a strong matching password, then done', async () => {
  const api = mockApi({
    'POST /api/password/forgot/verify': () => ({ data: { resetToken: 'reset-1' } }),
    'POST /api/password/forgot/reset': () => ({ data: {} }),
  });
  const { user } = renderAt(<AuthPage tab="login" />, { path: '/login', route: '/login' });
  await user.click(screen.getByRole('button', { name: 'Forgot password?' }));
  await user.type(await screen.findByLabelText('E-mail'), 'alice@example.com');
  await user.type(screen.getByLabelText('Verification code'), '123456');
  await user.click(screen.getByRole('button', { name: 'Verify' }));

  const password = await screen.findByLabelText('New password');
  await user.type(password, 'abcdefgh');
  await user.type(screen.getByLabelText('Confirm password'), 'abcdefgx');
  await user.click(screen.getByRole('button', { name: 'Reset password' }));
  expect(screen.getByText('Password must be at least 8 characters and contain letters and digits')).toBeInTheDocument();
  expect(screen.getByText('Passwords do not match')).toBeInTheDocument();

  await user.clear(password);
  await user.type(password, 'abcdefg1');
  await user.clear(screen.getByLabelText('Confirm password'));
  await user.type(screen.getByLabelText('Confirm password'), 'abcdefg1');
  await user.click(screen.getByRole('button', { name: 'Reset password' }));
  expect(await screen.findByText(/Your password has been reset/)).toBeInTheDocument();
  expect(api.calls.find((c) => c.key === 'POST /api/password/forgot/reset')!.body).toEqual({
    resetToken: 'reset-1',
    password: 'abcdefg1',
    confirmPassword: 'abcdefg1',
  });
});

describe('known devices', () => {
  /** The server: every sign-in answers a new device token; e-mail sign-in is by the code 123456. */
  function server() {
    let issued = 0;
    const signedIn = (username: string) => ({ data: { token: `tok-${username}`, user: testUser(username), isNewUser: false, expiresAt: 0, deviceToken: `device-${username}-${++issued}` } });
    return mockApi({
      'POST /api/login/login': (body) => {
        const b = body as { username?: string; email?: string; code?: string };
        if (b.email) return b.code === '123456' ? signedIn('Alice_1') : { status: 400, code: 'INVALID_CODE', message: 'Wrong code' };
        return signedIn(b.username!);
      },
      'POST /api/login/logout': () => ({ data: {} }),
    });
  }

  async function passwordSignIn(username: string) {
    const view = renderAt(<AuthPage tab="login" />, { path: '/login', route: '/login' });
    await view.user.type(screen.getByLabelText('Username'), username);
    await view.user.type(screen.getByLabelText('Password'), 'secret1');
    await view.user.click(screen.getByRole('button', { name: 'Login' }));
    await vi.waitFor(() => expect(view.router.state.location.pathname).toBe('/'));
    view.unmount();
  }

  test('a sign-in keeps the device token of that account, a sign-out keeps it too, and the next password sign-in of that name sends it', async () => {
    const api = server();
    // Signed in once with an e-mail code: the token is kept under the account's name.
    const { user, router, unmount } = renderAt(<AuthPage tab="login" />, { path: '/login', route: '/login' });
    await user.click(await screen.findByRole('tab', { name: 'E-mail' }));
    await user.type(await screen.findByLabelText('E-mail'), 'alice@example.com');
    await user.type(screen.getByLabelText('Verification code'), '123456');
    await user.click(screen.getByRole('button', { name: 'Login' }));
    await vi.waitFor(() => expect(router.state.location.pathname).toBe('/'));
    unmount();
    await signOutUser();
    expect(useSession.getState().token).toBeNull();

    // The password, typed in other letters' case: this browser's proof goes with it.
    await passwordSignIn('alice_1');
    const sent = () => api.calls.filter((c) => c.key === 'POST /api/login/login').map((c) => (c.body as { deviceToken?: string }).deviceToken);
    expect(sent()).toEqual([undefined, 'device-Alice_1-1']);
    // Another account has no proof here; each sign-in's new token replaces the old one.
    await passwordSignIn('bob_22');
    await passwordSignIn('ALICE_1');
    expect(sent()).toEqual([undefined, 'device-Alice_1-1', undefined, 'device-alice_1-2']);
  });

  test('at most ten accounts are remembered, the oldest sign-in forgotten first', async () => {
    const api = server();
    for (let n = 0; n <= 10; n++) await passwordSignIn(`user_${n}`);
    await passwordSignIn('user_1');
    await passwordSignIn('user_0');
    const sent = api.calls.map((c) => (c.body as { deviceToken?: string }).deviceToken);
    expect(sent.slice(-2)).toEqual(['device-user_1-2', undefined]);
  });
});

describe('password sign-in paused on the account', () => {
  const PAUSED = 'Too many wrong passwords were tried on this account. Sign in with a code sent to your e-mail, or on a device you signed in with before, or try again in 12 min';

  async function refused() {
    mockApi({ 'POST /api/login/login': () => ({ status: 429, code: 'PASSWORD_SIGN_IN_PAUSED', message: PAUSED }) });
    const view = renderAt(<AuthPage tab="login" />, { path: '/login', route: '/login' });
    await view.user.type(screen.getByLabelText('Username'), 'alice_1');
    await view.user.type(screen.getByLabelText('Password'), 'secret1');
    await view.user.click(screen.getByRole('button', { name: 'Login' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(PAUSED);
    return view;
  }

  test("the server's message, and a way to the e-mail code sign-in", async () => {
    const { user } = await refused();
    await user.click(screen.getByRole('button', { name: 'Sign in with an e-mail code' }));
    expect(await screen.findByRole('tab', { name: 'E-mail' })).toHaveAttribute('aria-selected', 'true');
    expect(screen.getByLabelText('E-mail')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Send code' })).toBeInTheDocument();
  });

  test('without e-mail sign-in on the site, only the message', async () => {
    useSite.setState({ info: siteInfo({ emailLogin: false }) });
    await refused();
    expect(screen.queryByRole('button', { name: 'Sign in with an e-mail code' })).toBeNull();
  });
});

test('two-factor actions paused: the sign-in code step shows the server\'s message and stays usable', async () => {
  const LOCKED = 'Too many wrong authenticator codes: two-factor actions on this account are paused until 2026-11-25 20:15 UTC';
  const api = mockApi({
    'POST /api/login/login': (body) =>
      (body as { totpCode?: string }).totpCode === undefined
        ? { status: 400, code: 'TOTP_REQUIRED', message: 'Enter the code from your authenticator app' }
        : { status: 429, code: 'TWO_FACTOR_LOCKED', message: LOCKED },
  });
  const { user } = renderAt(<AuthPage tab="login" />, { path: '/login', route: '/login' });
  await user.type(screen.getByLabelText('Username'), 'alice_1');
  await user.type(screen.getByLabelText('Password'), 'secret1');
  await user.click(screen.getByRole('button', { name: 'Login' }));
  await user.type(await screen.findByLabelText('Authenticator code'), '123456');
  await user.click(screen.getByRole('button', { name: 'Login' }));
  expect(await screen.findByRole('alert')).toHaveTextContent(LOCKED);
  expect(screen.getByLabelText('Authenticator code')).toHaveValue('123456');
  expect(screen.getByRole('button', { name: 'Login' })).toBeEnabled();
  expect(api.count('POST /api/login/login')).toBe(2);
  expect(useSession.getState().token).toBeNull();
});
