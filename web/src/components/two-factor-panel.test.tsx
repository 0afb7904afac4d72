import { screen, waitFor, within } from '@testing-library/react';
import { beforeEach, vi } from 'vitest';

import { ApiError } from '@/lib/api-client';
import { useToasts } from '@/stores/toast';
import { renderAt } from '@/testing/render';

import { type TwoFactorCalls, TwoFactorPanel } from './two-factor-panel';

const SETUP = { secret: 'JBSWY3DPEHPK3PXP', otpauthUrl: 'otpauth://totp/Trading:kate?secret=JBSWY3DPEHPK3PXP' };
const refusal = (code: string, message: string) => new ApiError(code, message, 400);

/** Calls that answer as the test says, recorded. */
function fakeCalls(enabled: boolean, overrides: Partial<TwoFactorCalls> = {}) {
  const calls = {
    state: vi.fn(() => Promise.resolve({ enabled })),
    setup: vi.fn(() => Promise.resolve(SETUP)),
    enable: vi.fn(() => Promise.resolve({ enabled: true })),
    disable: vi.fn(() => Promise.resolve({ enabled: false })),
    ...overrides,
  };
  return calls;
}

beforeEach(() => useToasts.setState({ toasts: [] }));

test('the calls it is given: state, then a fresh secret, confirmed with a code before it is on', async () => {
  const calls = fakeCalls(false);
  const { user } = renderAt(<TwoFactorPanel variant="trader" texts="security.twoFactor" calls={calls} />);
  expect(await screen.findByTestId('twofa-state')).toHaveTextContent('Off');
  expect(calls.state).toHaveBeenCalledWith(expect.any(AbortSignal));
  await user.click(screen.getByRole('button', { name: 'Enable' }));
  expect(await screen.findByTestId('twofa-secret')).toHaveTextContent(SETUP.secret);
  await user.type(screen.getByLabelText('Authenticator code'), '12');
  await user.click(screen.getByRole('button', { name: 'Confirm and enable' }));
  expect(screen.getByLabelText('Authenticator code')).toHaveAccessibleDescription('Enter the 6-digit code from your authenticator app');
  expect(calls.enable).not.toHaveBeenCalled();
  await user.type(screen.getByLabelText('Authenticator code'), '3456');
  await user.click(screen.getByRole('button', { name: 'Confirm and enable' }));
  await waitFor(() => expect(screen.getByTestId('twofa-state')).toHaveTextContent('On'));
  expect(calls.enable).toHaveBeenCalledExactlyOnceWith(SETUP.secret, '123456');
  expect(useToasts.getState().toasts.map((t) => t.text)).toContain('Two-factor authentication is on');
});

test('busy while a call is out: the confirming button waits, and nothing is sent twice', async () => {
  let answer!: () => void;
  const calls = fakeCalls(true, { disable: vi.fn(() => new Promise<unknown>((ok) => (answer = () => ok({ enabled: false })))) });
  const { user } = renderAt(<TwoFactorPanel variant="admin" texts="admin.account.twoFactor" calls={calls} />);
  await user.click(await screen.findByRole('button', { name: 'Turn off' }));
  await user.type(screen.getByLabelText('Your password'), 'secret1');
  await user.type(screen.getByLabelText('Authenticator code'), '123456');
  await user.click(screen.getByRole('button', { name: 'Confirm and turn off' }));
  expect(screen.getByRole('button', { name: 'Confirm and turn off' })).toBeDisabled();
  await user.click(screen.getByRole('button', { name: 'Confirm and turn off' }));
  answer();
  await waitFor(() => expect(screen.getByTestId('admin-twofa-state')).toHaveTextContent('Off'));
  expect(calls.disable).toHaveBeenCalledExactlyOnceWith('123456', 'secret1');
});

test.each([
  ['trader', 'security.twoFactor', 'Disable', 'Login password', 'Confirm and disable'],
  ['admin', 'admin.account.twoFactor', 'Turn off', 'Your password', 'Confirm and turn off'],
] as const)('%s: a refusal shows by the field it is about, else for the whole form', async (variant, texts, disable, passwordLabel, confirm) => {
  const answers = [refusal('WRONG_PASSWORD', 'Wrong password'), refusal('INVALID_TOTP', 'Wrong code'), new ApiError('TWO_FACTOR_LOCKED', 'Locked for 15 minutes', 429)];
  const calls = fakeCalls(true, { disable: vi.fn(() => Promise.reject(answers.shift())) });
  const { user } = renderAt(<TwoFactorPanel variant={variant} texts={texts} calls={calls} />);
  await user.click(await screen.findByRole('button', { name: disable }));
  const password = screen.getByLabelText(passwordLabel);
  const code = screen.getByLabelText('Authenticator code');
  await user.type(password, 'nope');
  await user.type(code, '111111');
  await user.click(screen.getByRole('button', { name: confirm }));
  await waitFor(() => expect(password).toHaveAccessibleDescription('Wrong password'));
  await user.click(screen.getByRole('button', { name: confirm }));
  await waitFor(() => expect(code).toHaveAccessibleDescription('Wrong code'));
  expect(password).not.toHaveAccessibleDescription();
  await user.click(screen.getByRole('button', { name: confirm }));
  expect(await screen.findByRole('alert')).toHaveTextContent('Locked for 15 minutes');
  expect(calls.disable).toHaveBeenCalledTimes(3);
});

test('the two variants part as they always did: how a failed read shows, and whether typing clears the message', async () => {
  const failing = () => fakeCalls(false, { state: vi.fn(() => Promise.reject(new ApiError('INTERNAL', 'Server error', 500))) });
  const trader = renderAt(<TwoFactorPanel variant="trader" texts="security.twoFactor" calls={failing()} />);
  // The trader's panel: the message, and the panel off (it can be turned on from there).
  expect(await screen.findByRole('alert')).toHaveTextContent('Server error');
  expect(screen.getByTestId('twofa-state')).toHaveTextContent('Off');
  expect(screen.getByRole('button', { name: 'Enable' })).toBeEnabled();
  trader.unmount();

  const admin = renderAt(<TwoFactorPanel variant="admin" texts="admin.account.twoFactor" calls={failing()} />);
  // The admin's: a retry, and no state until it is read.
  expect(await screen.findByRole('alert')).toHaveTextContent('Server error');
  expect(screen.getByRole('button', { name: 'Retry' })).toBeInTheDocument();
  expect(screen.queryByTestId('admin-twofa-state')).toBeNull();
  admin.unmount();

  for (const [variant, texts, enable, confirm, stays] of [
    ['trader', 'security.twoFactor', 'Enable', 'Confirm and enable', false],
    ['admin', 'admin.account.twoFactor', 'Turn on', 'Confirm and turn on', true],
  ] as const) {
    const calls = fakeCalls(false, { enable: vi.fn(() => Promise.reject(new ApiError('TWO_FACTOR_LOCKED', 'Locked', 429))) });
    const view = renderAt(<TwoFactorPanel variant={variant} texts={texts} calls={calls} />);
    await view.user.click(await screen.findByRole('button', { name: enable }));
    await view.user.type(await screen.findByLabelText('Authenticator code'), '123456');
    await view.user.click(screen.getByRole('button', { name: confirm }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Locked');
    await view.user.type(screen.getByLabelText('Authenticator code'), '{Backspace}');
    if (stays) expect(screen.getByRole('alert')).toHaveTextContent('Locked');
    else expect(screen.queryByRole('alert')).toBeNull();
    view.unmount();
  }
});

test('admin: a refusal saying it is on already (changed elsewhere) shows where it stands now', async () => {
  const calls = fakeCalls(false, { enable: vi.fn(() => Promise.reject(refusal('TOTP_ALREADY_ENABLED', 'It is on already'))) });
  const { user } = renderAt(<TwoFactorPanel variant="admin" texts="admin.account.twoFactor" calls={calls} />);
  await user.click(await screen.findByRole('button', { name: 'Turn on' }));
  await user.type(await screen.findByLabelText('Authenticator code'), '123456');
  await user.click(screen.getByRole('button', { name: 'Confirm and turn on' }));
  await waitFor(() => expect(screen.getByTestId('admin-twofa-state')).toHaveTextContent('On'));
  const card = screen.getByRole('region', { name: 'Two-factor sign-in' });
  expect(within(card).getByRole('alert')).toHaveTextContent('It is on already');
  expect(within(card).getByRole('button', { name: 'Turn off' })).toBeInTheDocument();
});

test('without a password yet it cannot be turned off: the panel says to set one first', async () => {
  const calls = fakeCalls(true);
  const { user } = renderAt(<TwoFactorPanel variant="trader" texts="security.twoFactor" calls={calls} canDisable={false} />);
  await user.click(await screen.findByRole('button', { name: 'Disable' }));
  expect(screen.getByText('Turning two-factor authentication off needs a login password: set one above first.')).toBeInTheDocument();
  expect(screen.queryByLabelText('Login password')).toBeNull();
  await user.click(screen.getByRole('button', { name: 'Cancel' }));
  expect(screen.getByRole('button', { name: 'Disable' })).toBeInTheDocument();
  expect(calls.disable).not.toHaveBeenCalled();
});
