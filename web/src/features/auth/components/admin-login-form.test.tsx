import { screen, waitFor } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';

import { useAdminSession } from '@/stores/admin-session';
import { adminOf } from '@/testing/admins';
import { mockApi } from '@/testing/api';
import { renderAt } from '@/testing/render';

import { AdminLoginForm } from './admin-login-form';

const ADMIN = adminOf('finance', { username: 'fiona' });

/** The server of an admin who turned two-factor sign-in on: the code is 246810. */
function server() {
  return mockApi({
    'POST /api/admin/login': (body) => {
      const { username, password, totpCode } = body as { username: string; password: string; totpCode?: string };
      if (username !== 'fiona' || password !== 'secret123') return { status: 400, code: 'ADMIN_LOGIN_FAILED', message: 'Incorrect admin username or password' };
      if (totpCode === undefined) return { status: 400, code: 'TOTP_REQUIRED', message: 'Enter the code from your authenticator app' };
      if (totpCode !== '246810') return { status: 400, code: 'INVALID_TOTP', message: 'The authenticator code is wrong' };
      return { data: { token: 'admin-token', admin: ADMIN } };
    },
  });
}

describe('the admin sign-in with two-factor sign-in on', () => {
  beforeEach(() => useAdminSession.getState().signOut());

  it('asks for the authenticator code as a second step, checks it, and signs in with it', async () => {
    const api = server();
    const signedIn = vi.fn();
    const { user } = renderAt(<AdminLoginForm onSignedIn={signedIn} />);
    expect(screen.queryByLabelText('Authenticator code')).toBeNull();
    await user.type(screen.getByLabelText('Username'), 'fiona');
    await user.type(screen.getByLabelText('Password'), 'secret123');
    await user.click(screen.getByRole('button', { name: 'Login' }));

    // The code field appears, focused, for a phone's keypad and the browser's one-time codes.
    const code = await screen.findByLabelText('Authenticator code');
    expect(code).toHaveFocus();
    expect(code).toHaveAttribute('inputmode', 'numeric');
    expect(code).toHaveAttribute('autocomplete', 'one-time-code');
    expect(code).toHaveAttribute('maxlength', '6');
    expect(code).toHaveAccessibleDescription(/enter the 6-digit code your authenticator app shows/);
    // A step, not a failure; the username and password stay.
    expect(screen.queryByRole('alert')).toBeNull();
    expect(screen.getByLabelText('Username')).toHaveValue('fiona');
    expect(screen.getByLabelText('Password')).toHaveValue('secret123');
    expect(api.calls[0]?.body).toEqual({ username: 'fiona', password: 'secret123' });

    // Not 6 digits: said at once, nothing sent.
    await user.click(screen.getByRole('button', { name: 'Login' }));
    expect(await screen.findByText('Enter the 6-digit code from your authenticator app')).toBeInTheDocument();
    await user.type(code, '12a45');
    await user.click(screen.getByRole('button', { name: 'Login' }));
    expect(await screen.findByText('Enter the 6-digit code from your authenticator app')).toBeInTheDocument();
    expect(api.count('POST /api/admin/login')).toBe(1);

    // A wrong code: the server's message on the field.
    await user.clear(code);
    await user.type(code, '111111');
    await user.click(screen.getByRole('button', { name: 'Login' }));
    expect(await screen.findByText('The authenticator code is wrong')).toBeInTheDocument();
    expect(code).toHaveAttribute('aria-invalid', 'true');
    expect(signedIn).not.toHaveBeenCalled();

    await user.clear(code);
    await user.type(code, '246810');
    await user.click(screen.getByRole('button', { name: 'Login' }));
    await waitFor(() => expect(signedIn).toHaveBeenCalledTimes(1));
    expect(api.calls.at(-1)?.body).toEqual({ username: 'fiona', password: 'secret123', totpCode: '246810' });
    expect(useAdminSession.getState()).toMatchObject({ token: 'admin-token', admin: ADMIN });
  });

  it('another username drops the code step; a wrong password stays a plain failure', async () => {
    const api = server();
    const { user } = renderAt(<AdminLoginForm onSignedIn={() => {}} />);
    await user.type(screen.getByLabelText('Username'), 'fiona');
    await user.type(screen.getByLabelText('Password'), 'secret123');
    await user.click(screen.getByRole('button', { name: 'Login' }));
    expect(await screen.findByLabelText('Authenticator code')).toBeInTheDocument();
    await user.type(screen.getByLabelText('Username'), 'x');
    expect(screen.queryByLabelText('Authenticator code')).toBeNull();

    await user.clear(screen.getByLabelText('Password'));
    await user.type(screen.getByLabelText('Password'), 'wrong-one');
    await user.click(screen.getByRole('button', { name: 'Login' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Incorrect admin username or password');
    expect(screen.queryByLabelText('Authenticator code')).toBeNull();
    expect(api.calls.at(-1)?.body).toEqual({ username: 'fionax', password: 'wrong-one' });
  });
});

describe('the admin sign-in on a known device', () => {
  beforeEach(() => useAdminSession.getState().signOut());

  it("keeps this admin's device token (apart from users'), sends it with that admin's next sign-in, and keeps it past a sign-out", async () => {
    let issued = 0;
    const api = mockApi({
      'POST /api/admin/login': (body) => {
        const { username } = body as { username: string };
        return { data: { token: `admin-token-${username}`, deviceToken: `admin-device-${++issued}`, admin: adminOf('finance', { username }) } };
      },
    });
    const signIn = async (username: string) => {
      const { user, unmount } = renderAt(<AdminLoginForm onSignedIn={() => {}} />);
      await user.type(screen.getByLabelText('Username'), username);
      await user.type(screen.getByLabelText('Password'), 'secret123');
      await user.click(screen.getByRole('button', { name: 'Login' }));
      await waitFor(() => expect(useAdminSession.getState().token).toBe(`admin-token-${username}`));
      unmount();
      useAdminSession.getState().signOut();
    };
    await signIn('fiona');
    await signIn('Fiona');
    await signIn('gary_ops');
    expect(api.calls.map((c) => c.body)).toEqual([
      { username: 'fiona', password: 'secret123' },
      { username: 'Fiona', password: 'secret123', deviceToken: 'admin-device-1' },
      { username: 'gary_ops', password: 'secret123' },
    ]);
    // Kept apart from the traders' tokens: a trader of the same name gets no admin's proof.
    expect(window.localStorage.getItem('deviceTokens')).toBeNull();
  });

  it("shows the server's message when password sign-in is paused on the account", async () => {
    const paused = 'Too many wrong passwords were tried on this account. Sign in with a code sent to your e-mail, or on a device you signed in with before, or try again in 3 min';
    mockApi({ 'POST /api/admin/login': () => ({ status: 429, code: 'PASSWORD_SIGN_IN_PAUSED', message: paused }) });
    const signedIn = vi.fn();
    const { user } = renderAt(<AdminLoginForm onSignedIn={signedIn} />);
    await user.type(screen.getByLabelText('Username'), 'fiona');
    await user.type(screen.getByLabelText('Password'), 'secret123');
    await user.click(screen.getByRole('button', { name: 'Login' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(paused);
    expect(screen.getByRole('button', { name: 'Login' })).toBeEnabled();
    expect(signedIn).not.toHaveBeenCalled();
  });
});
