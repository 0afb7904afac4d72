import { screen, waitFor, within } from '@testing-library/react';
import { beforeEach, describe, expect, it } from 'vitest';

import { useAdminSession } from '@/stores/admin-session';
import { useToasts } from '@/stores/toast';
import { adminOf } from '@/testing/admins';
import { mockApi } from '@/testing/api';
import { renderAt } from '@/testing/render';

import { AccountPage } from './account-page';

const FIONA = adminOf('finance', { id: 4, username: 'fiona' });
const toasts = () => useToasts.getState().toasts.map((t) => t.text);

function server(state = { twoFactor: false }) {
  return mockApi({
    'GET /api/admin/2fa': () => ({ data: { enabled: state.twoFactor } }),
    'POST /api/admin/2fa/setup': () => ({ data: { secret: 'JBSWY3DPEHPK3PXP', otpauthUrl: 'otpauth://totp/Trading%20Pro:fiona%20(back-office)?secret=JBSWY3DPEHPK3PXP&issuer=Trading%20Pro' } }),
    'POST /api/admin/2fa/enable': (body) => {
      if ((body as { code: string }).code !== '135790') return { status: 400, code: 'INVALID_TOTP', message: 'The authenticator code is wrong' };
      state.twoFactor = true;
      return { data: { enabled: true } };
    },
    'POST /api/admin/2fa/disable': (body) => {
      const { code, password } = body as { code: string; password: string };
      if (password !== 'old-secret') return { status: 400, code: 'WRONG_PASSWORD', message: 'The current password is wrong' };
      if (code === '000000') return { status: 400, code: 'INVALID_TOTP', message: 'The authenticator code is wrong' };
      if (code === '999999') return { status: 429, code: 'TWO_FACTOR_LOCKED', message: 'Too many wrong codes: try again in 15 minutes' };
      state.twoFactor = false;
      return { data: { enabled: false } };
    },
    'POST /api/admin/password': (body) => {
      const { oldPassword } = body as { oldPassword: string };
      if (oldPassword !== 'old-secret') return { status: 400, code: 'WRONG_PASSWORD', message: 'The current password is wrong' };
      return { data: {} };
    },
  });
}

describe('my account', () => {
  beforeEach(() => {
    useAdminSession.getState().signIn('t', FIONA);
    useToasts.setState({ toasts: [] });
  });

  it('shows the username, the role, and what the role may do by area', async () => {
    server();
    renderAt(<AccountPage />, { path: '/admin/account', route: '/admin/account' });
    expect(screen.getByRole('heading', { name: 'My account' })).toBeInTheDocument();
    const profile = screen.getByRole('region', { name: 'Profile' });
    expect(within(profile).getByText('fiona')).toBeInTheDocument();
    expect(within(profile).getByText('Finance')).toBeInTheDocument();
    const powers = within(profile).getByRole('region', { name: 'What your role may do' });
    const areas = within(powers).getAllByRole('listitem');
    expect(areas.map((li) => li.querySelector('strong')?.textContent)).toEqual(['Dashboard', 'Users', 'Teams', 'Trades', 'Recharge and withdraw orders', 'Balances', 'Audit log']);
    expect(areas[0]).toHaveTextContent('View');
    expect(areas[0]).toHaveTextContent('Key figures and daily charts');
    expect(areas[4]).toHaveTextContent('View and change');
    expect(areas[5]).toHaveTextContent('Balance adjustments, each with a reason');
    expect(powers).not.toHaveTextContent('Admins');
    expect(powers).not.toHaveTextContent('Game rules');
    await screen.findByTestId('admin-twofa-state');
  });

  it('#password focuses the password form', async () => {
    server();
    renderAt(<AccountPage />, { path: '/admin/account', route: '/admin/account#password' });
    await waitFor(() => expect(screen.getByLabelText('Current password')).toHaveFocus());
  });

  it('checks the password rules of §5 before calling, again as the admin types, and places the server refusal', async () => {
    const api = server();
    const { user } = renderAt(<AccountPage />, { path: '/admin/account', route: '/admin/account' });
    const form = screen.getByRole('region', { name: 'Change password' });
    const submit = () => user.click(within(form).getByRole('button', { name: 'Change password' }));
    const current = within(form).getByLabelText('Current password');
    const next = within(form).getByLabelText('New password');
    const confirm = within(form).getByLabelText('Confirm new password');

    await submit();
    expect(within(form).getByRole('alert')).toHaveTextContent('Please fill in all password fields');
    await user.type(current, 'wrong-secret');
    await user.type(next, '12345');
    await user.type(confirm, '1234');
    // Checked again as typed: every field is filled now, so the rules show on their fields.
    expect(within(form).queryByText('Please fill in all password fields')).toBeNull();
    expect(next).toHaveAccessibleDescription('Password must be at least 6 characters');
    expect(confirm).toHaveAccessibleDescription('Passwords do not match');
    await user.type(next, '6');
    expect(within(form).queryByText('Password must be at least 6 characters')).toBeNull();
    await user.type(confirm, '56');
    expect(within(form).queryByRole('alert')).toBeNull();
    expect(api.count('POST /api/admin/password')).toBe(0);

    await submit();
    expect(await within(form).findByText('The current password is wrong')).toBeInTheDocument();
    expect(current).toHaveAttribute('aria-invalid', 'true');
    expect(api.calls.at(-1)?.body).toEqual({ oldPassword: 'wrong-secret', newPassword: '123456', confirmPassword: '123456' });

    await user.clear(current);
    await user.type(current, 'old-secret');
    await submit();
    await waitFor(() => expect(toasts()).toContain('Password changed. Your other sessions were signed out.'));
    expect(current).toHaveValue('');
    expect(next).toHaveValue('');
    expect(confirm).toHaveValue('');
    // This session stays.
    expect(useAdminSession.getState().token).toBe('t');
  });

  it('turns two-factor sign-in on with the QR code and a confirmed 6-digit code, and off with the password and a code', async () => {
    const api = server();
    const { user } = renderAt(<AccountPage />, { path: '/admin/account', route: '/admin/account' });
    const card = screen.getByRole('region', { name: 'Two-factor sign-in' });
    expect(await within(card).findByTestId('admin-twofa-state')).toHaveTextContent('Off');
    await user.click(within(card).getByRole('button', { name: 'Turn on' }));
    expect(await within(card).findByRole('img', { name: 'QR code for your authenticator app' })).toBeInTheDocument();
    expect(within(card).getByTestId('twofa-secret')).toHaveTextContent('JBSWY3DPEHPK3PXP');
    expect(within(card).getByRole('button', { name: 'Copy Secret key' })).toBeInTheDocument();

    const code = within(card).getByLabelText('Authenticator code');
    expect(code).toHaveAttribute('inputmode', 'numeric');
    expect(code).toHaveAttribute('autocomplete', 'one-time-code');
    await user.type(code, '13579');
    await user.click(within(card).getByRole('button', { name: 'Confirm and turn on' }));
    expect(code).toHaveAccessibleDescription('Enter the 6-digit code from your authenticator app');
    expect(api.count('POST /api/admin/2fa/enable')).toBe(0);

    await user.type(code, '1');
    await user.click(within(card).getByRole('button', { name: 'Confirm and turn on' }));
    expect(await within(card).findByText('The authenticator code is wrong')).toBeInTheDocument();
    expect(within(card).getByTestId('admin-twofa-state')).toHaveTextContent('Off');

    await user.clear(code);
    await user.type(code, '135790');
    await user.click(within(card).getByRole('button', { name: 'Confirm and turn on' }));
    await waitFor(() => expect(within(card).getByTestId('admin-twofa-state')).toHaveTextContent('On'));
    expect(api.calls.find((c) => c.key === 'POST /api/admin/2fa/enable' && (c.body as { code: string }).code === '135790')?.body).toEqual({ secret: 'JBSWY3DPEHPK3PXP', code: '135790' });
    expect(toasts()).toContain('Two-factor sign-in is on: your next sign-in will ask for a code');

    await user.click(within(card).getByRole('button', { name: 'Turn off' }));
    await user.type(within(card).getByLabelText('Your password'), 'old-secret');
    await user.type(within(card).getByLabelText('Authenticator code'), '024680');
    await user.click(within(card).getByRole('button', { name: 'Confirm and turn off' }));
    await waitFor(() => expect(within(card).getByTestId('admin-twofa-state')).toHaveTextContent('Off'));
    expect(api.calls.at(-1)).toEqual(expect.objectContaining({ key: 'POST /api/admin/2fa/disable', body: { code: '024680', password: 'old-secret' } }));
  });

  it('turning two-factor sign-in off needs the password and a code; each refusal shows where it belongs', async () => {
    const api = server({ twoFactor: true });
    const { user } = renderAt(<AccountPage />, { path: '/admin/account', route: '/admin/account' });
    const card = screen.getByRole('region', { name: 'Two-factor sign-in' });
    await user.click(await within(card).findByRole('button', { name: 'Turn off' }));
    expect(within(card).getByText('Enter your password and a current code from your authenticator app to turn two-factor sign-in off.')).toBeInTheDocument();
    const password = within(card).getByLabelText('Your password');
    const code = within(card).getByLabelText('Authenticator code');
    expect(password).toHaveAttribute('type', 'password');
    expect(password).toHaveAttribute('autocomplete', 'current-password');

    // Both checked before anything is sent.
    await user.click(within(card).getByRole('button', { name: 'Confirm and turn off' }));
    expect(password).toHaveAccessibleDescription('Please enter your password');
    expect(code).toHaveAccessibleDescription('Enter the 6-digit code from your authenticator app');
    await user.type(code, '024680');
    await user.click(within(card).getByRole('button', { name: 'Confirm and turn off' }));
    expect(password).toHaveAccessibleDescription('Please enter your password');
    expect(code).not.toHaveAccessibleDescription();
    expect(api.count('POST /api/admin/2fa/disable')).toBe(0);

    // A wrong password: the server's message on the password.
    await user.type(password, 'not-mine');
    await user.click(within(card).getByRole('button', { name: 'Confirm and turn off' }));
    await waitFor(() => expect(password).toHaveAccessibleDescription('The current password is wrong'));
    expect(api.calls.at(-1)?.body).toEqual({ code: '024680', password: 'not-mine' });

    // A wrong code: on the code.
    await user.clear(password);
    await user.type(password, 'old-secret');
    await user.clear(code);
    await user.type(code, '000000');
    await user.click(within(card).getByRole('button', { name: 'Confirm and turn off' }));
    await waitFor(() => expect(code).toHaveAccessibleDescription('The authenticator code is wrong'));
    expect(password).not.toHaveAccessibleDescription();

    // Too many wrong codes: the server's message, which says how long to wait, for the form.
    await user.clear(code);
    await user.type(code, '999999');
    await user.click(within(card).getByRole('button', { name: 'Confirm and turn off' }));
    expect(await within(card).findByRole('alert')).toHaveTextContent('Too many wrong codes: try again in 15 minutes');
    expect(within(card).getByTestId('admin-twofa-state')).toHaveTextContent('On');
    expect(api.count('POST /api/admin/2fa/disable')).toBe(3);
  });

  it('says when the two-factor state cannot be read, and tries again', async () => {
    let fail = true;
    mockApi({ 'GET /api/admin/2fa': () => (fail ? { status: 500, code: 'INTERNAL', message: 'Server error, please try again later' } : { data: { enabled: true } }) });
    const { user } = renderAt(<AccountPage />, { path: '/admin/account', route: '/admin/account' });
    const card = screen.getByRole('region', { name: 'Two-factor sign-in' });
    expect(await within(card).findByRole('alert')).toHaveTextContent('Server error, please try again later');
    fail = false;
    await user.click(within(card).getByRole('button', { name: 'Retry' }));
    expect(await within(card).findByTestId('admin-twofa-state')).toHaveTextContent('On');
  });
});
