import { screen, within } from '@testing-library/react';
import { beforeEach, describe, vi } from 'vitest';

import { mockApi } from '@/testing/api';
import { renderAt } from '@/testing/render';
import { useSession } from '@/stores/session';

import { ChangePassword } from './change-password';
import { Sessions } from './sessions';
import { TwoFactor } from './two-factor';

const user = { uid: 1, username: 'kate', nickname: '', avatar: '', bio: '', phone: '', email: 'k@example.com', emailVerified: true, lastLogin: 0, joinTime: 0, inviteCode: 'ABCD2345', loginType: 'account' as const, twoFactor: false, hasPassword: true, frozen: false };

beforeEach(() => {
  vi.unstubAllGlobals();
  useSession.setState({ token: 't', user });
});

test('change password: every spec §5 message, then one call; a wallet user sets a first password', async () => {
  const api = mockApi({ 'POST /api/user/password': () => ({ data: {} }) });
  const { user: u } = renderAt(<ChangePassword />);
  const submit = () => u.click(screen.getByRole('button', { name: 'Change password' }));
  await submit();
  expect(await screen.findByText('Please fill in all password fields')).toBeInTheDocument();
  await u.type(screen.getByLabelText('Current password'), 'secret1');
  await u.type(screen.getByLabelText('New password'), '12345');
  await u.type(screen.getByLabelText('Confirm new password'), '12345');
  await submit();
  expect(await screen.findByText('Password must be at least 6 characters')).toBeInTheDocument();
  await u.type(screen.getByLabelText('New password'), '6');
  await submit();
  expect(await screen.findByText('Passwords do not match')).toBeInTheDocument();
  expect(screen.getByText(/Withdrawal is not allowed within 24 hours after the login password is changed/)).toBeInTheDocument();
  expect(api.calls).toEqual([]);
  await u.type(screen.getByLabelText('Confirm new password'), '6');
  await submit();
  await vi.waitFor(() => expect(api.calls.map((c) => c.body)).toEqual([{ oldPassword: 'secret1', newPassword: '123456', confirmPassword: '123456' }]));
  expect(screen.getByLabelText('New password')).toHaveValue('');
});

test('a wallet user without a password sets one without a current password', async () => {
  useSession.setState({ token: 't', user: { ...user, loginType: 'wallet', hasPassword: false } });
  const api = mockApi({ 'POST /api/user/password': () => ({ data: {} }) });
  const { user: u } = renderAt(<ChangePassword />);
  expect(screen.queryByLabelText('Current password')).not.toBeInTheDocument();
  await u.type(screen.getByLabelText('New password'), 'secret1');
  await u.type(screen.getByLabelText('Confirm new password'), 'secret1');
  await u.click(screen.getByRole('button', { name: 'Set password' }));
  await vi.waitFor(() => expect(api.calls[0]?.body).toEqual({ oldPassword: '', newPassword: 'secret1', confirmPassword: 'secret1' }));
  await vi.waitFor(() => expect(useSession.getState().user?.hasPassword).toBe(true));
});

test('2FA: a fresh secret as a QR code and text; on only after a confirmed code; off with the password and a code', async () => {
  let enabled = false;
  const api = mockApi({
    'GET /api/user/2fa': () => ({ data: { enabled } }),
    'POST /api/user/2fa/setup': () => ({ data: { secret: 'JBSWY3DPEHPK3PXP', otpauthUrl: 'otpauth://totp/Trading:kate?secret=JBSWY3DPEHPK3PXP&issuer=Trading' } }),
    'POST /api/user/2fa/enable': (body) => {
      if ((body as { code: string }).code !== '123456') return { status: 400, code: 'INVALID_TOTP', message: 'The authenticator code is wrong' };
      enabled = true;
      return { data: { enabled } };
    },
    'POST /api/user/2fa/disable': () => ((enabled = false), { data: { enabled } }),
  });
  const { user: u } = renderAt(<TwoFactor />);
  expect(await screen.findByTestId('twofa-state')).toHaveTextContent('Off');
  await u.click(screen.getByRole('button', { name: 'Enable' }));
  expect(await screen.findByRole('img', { name: 'QR code for your authenticator app' })).toBeInTheDocument();
  expect(screen.getByTestId('twofa-secret')).toHaveTextContent('JBSWY3DPEHPK3PXP');
  await u.type(screen.getByLabelText('Authenticator code'), '12');
  await u.click(screen.getByRole('button', { name: 'Confirm and enable' }));
  expect(await screen.findByText('Enter the 6-digit code from your authenticator app')).toBeInTheDocument();
  await u.type(screen.getByLabelText('Authenticator code'), '3457');
  await u.click(screen.getByRole('button', { name: 'Confirm and enable' }));
  expect(await screen.findByText('The authenticator code is wrong')).toBeInTheDocument();
  expect(screen.getByTestId('twofa-state')).toHaveTextContent('Off');
  await u.clear(screen.getByLabelText('Authenticator code'));
  await u.type(screen.getByLabelText('Authenticator code'), '123456');
  await u.click(screen.getByRole('button', { name: 'Confirm and enable' }));
  await vi.waitFor(() => expect(screen.getByTestId('twofa-state')).toHaveTextContent('On'));
  expect(api.calls.filter((c) => c.key === 'POST /api/user/2fa/enable').at(-1)?.body).toEqual({ secret: 'JBSWY3DPEHPK3PXP', code: '123456' });

  await u.click(screen.getByRole('button', { name: 'Disable' }));
  await u.type(screen.getByLabelText('Login password'), 'secret1');
  await u.type(screen.getByLabelText('Authenticator code'), '654321');
  await u.click(screen.getByRole('button', { name: 'Confirm and disable' }));
  await vi.waitFor(() => expect(screen.getByTestId('twofa-state')).toHaveTextContent('Off'));
  expect(api.calls.at(-1)).toEqual(expect.objectContaining({ key: 'POST /api/user/2fa/disable', body: { code: '654321', password: 'secret1' } }));
});

describe('2FA off needs the login password and a code', () => {
  /** The server's answers to turning it off, one after another. */
  function disableServer(answers: Array<{ status?: number; code?: string; message?: string; data?: unknown }>) {
    return mockApi({
      'GET /api/user/2fa': () => ({ data: { enabled: true } }),
      'POST /api/user/2fa/disable': () => answers.shift() ?? { data: { enabled: false } },
    });
  }

  test('the password field is a real password field; both fields are checked before sending', async () => {
    const api = disableServer([]);
    const { user: u } = renderAt(<TwoFactor />);
    await u.click(await screen.findByRole('button', { name: 'Disable' }));
    expect(screen.getByText('Enter your login password and a current code from your authenticator app to turn two-factor authentication off.')).toBeInTheDocument();
    const password = screen.getByLabelText('Login password');
    expect(password).toHaveAttribute('type', 'password');
    expect(password).toHaveAttribute('autocomplete', 'current-password');
    await u.click(screen.getByRole('button', { name: 'Confirm and disable' }));
    expect(password).toHaveAccessibleDescription('Please enter your login password');
    expect(screen.getByLabelText('Authenticator code')).toHaveAccessibleDescription('Enter the 6-digit code from your authenticator app');
    await u.type(screen.getByLabelText('Authenticator code'), '123456');
    await u.click(screen.getByRole('button', { name: 'Confirm and disable' }));
    expect(password).toHaveAccessibleDescription('Please enter your login password');
    expect(api.count('POST /api/user/2fa/disable')).toBe(0);
  });

  test('a wrong password, a wrong code and too many wrong codes each show the server\'s message where it belongs', async () => {
    // The server's messages come in the user's language (German here): the form shows them as sent.
    const api = disableServer([
      { status: 400, code: 'WRONG_PASSWORD', message: 'Das aktuelle Passwort ist falsch' },
      { status: 400, code: 'INVALID_TOTP', message: 'Der Code ist falsch' },
      { status: 429, code: 'TWO_FACTOR_LOCKED', message: 'Zu viele falsche Codes: bitte in 15 Minuten erneut versuchen' },
    ]);
    const { user: u } = renderAt(<TwoFactor />);
    await u.click(await screen.findByRole('button', { name: 'Disable' }));
    const password = screen.getByLabelText('Login password');
    const code = screen.getByLabelText('Authenticator code');
    await u.type(password, 'wrong-one');
    await u.type(code, '111111');
    await u.click(screen.getByRole('button', { name: 'Confirm and disable' }));
    await vi.waitFor(() => expect(password).toHaveAccessibleDescription('Das aktuelle Passwort ist falsch'));
    expect(api.calls.at(-1)?.body).toEqual({ code: '111111', password: 'wrong-one' });

    await u.clear(password);
    await u.type(password, 'secret1');
    expect(password).not.toHaveAccessibleDescription();
    await u.click(screen.getByRole('button', { name: 'Confirm and disable' }));
    await vi.waitFor(() => expect(code).toHaveAccessibleDescription('Der Code ist falsch'));
    expect(password).not.toHaveAccessibleDescription();

    await u.click(screen.getByRole('button', { name: 'Confirm and disable' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Zu viele falsche Codes: bitte in 15 Minuten erneut versuchen');
    expect(screen.getByTestId('twofa-state')).toHaveTextContent('On');
    expect(api.count('POST /api/user/2fa/disable')).toBe(3);
  });

  test('a wallet user without a password is told to set one first', async () => {
    useSession.setState({ token: 't', user: { ...user, loginType: 'wallet', hasPassword: false } });
    const api = disableServer([]);
    const { user: u } = renderAt(<TwoFactor />);
    await u.click(await screen.findByRole('button', { name: 'Disable' }));
    expect(screen.getByText('Turning two-factor authentication off needs a login password: set one above first.')).toBeInTheDocument();
    expect(screen.queryByLabelText('Login password')).toBeNull();
    await u.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(screen.getByRole('button', { name: 'Disable' })).toBeInTheDocument();
    expect(api.count('POST /api/user/2fa/disable')).toBe(0);
  });
});

test('sessions: this device is marked and cannot be ended; another can', async () => {
  let sessions = [
    { id: 1, device: 'Chrome on Linux', ip: '10.0.0.1', createdAt: 1, expiresAt: 2, current: true },
    { id: 2, device: 'Safari on iPhone', ip: '10.0.0.2', createdAt: 1, expiresAt: 2, current: false },
  ];
  const api = mockApi({
    'GET /api/user/sessions': () => ({ data: sessions }),
    'DELETE /api/user/sessions/2': () => ((sessions = sessions.slice(0, 1)), { data: {} }),
  });
  const { user: u } = renderAt(<Sessions />);
  const mine = await screen.findByTestId('session-1');
  expect(within(mine).getByText('This device')).toBeInTheDocument();
  expect(within(mine).queryByRole('button')).toBeNull();
  await u.click(screen.getByRole('button', { name: 'End the session on Safari on iPhone' }));
  await vi.waitFor(() => expect(screen.queryByTestId('session-2')).toBeNull());
  expect(api.count('DELETE /api/user/sessions/2')).toBe(1);
});
