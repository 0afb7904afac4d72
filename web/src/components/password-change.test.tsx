import { screen, waitFor } from '@testing-library/react';
import { beforeEach, vi } from 'vitest';

import { ApiError } from '@/lib/api-client';
import { useToasts } from '@/stores/toast';
import { renderAt } from '@/testing/render';

import { PasswordChange, type PasswordChecks, type PasswordForm } from './password-change';

/** The admin's rules, as the back-office passes them. */
function adminRules(form: PasswordForm): PasswordChecks {
  if (!form.current || !form.next || !form.confirm) return { form: 'admin.account.password.fillAll' };
  const found: PasswordChecks = {};
  if (form.next.length < 6) found.next = 'admin.account.password.min';
  if (form.next !== form.confirm) found.confirm = 'admin.account.password.mismatch';
  return found;
}

/** The trader's: one message for the whole form. */
const traderRules = (form: PasswordForm): PasswordChecks => (form.next.length < 6 ? { form: 'security.validation.min' } : {});

beforeEach(() => useToasts.setState({ toasts: [] }));

async function fill(user: ReturnType<typeof renderAt>['user'], current: string | null, next: string, confirm = next) {
  if (current !== null) await user.type(screen.getByLabelText('Current password'), current);
  await user.type(screen.getByLabelText('New password'), next);
  await user.type(screen.getByLabelText('Confirm new password'), confirm);
}

test('the call it is given, once, with the form; busy until it answers; then cleared, with the toast', async () => {
  let answer!: () => void;
  const change = vi.fn(() => new Promise<unknown>((ok) => (answer = () => ok({}))));
  const onChanged = vi.fn();
  const { user } = renderAt(<PasswordChange variant="trader" texts="security.password" change={change} check={traderRules} onChanged={onChanged} />);
  await fill(user, 'secret1', 'secret2');
  await user.click(screen.getByRole('button', { name: 'Change password' }));
  expect(screen.getByRole('button', { name: 'Change password' })).toBeDisabled();
  await user.click(screen.getByRole('button', { name: 'Change password' }));
  answer();
  await waitFor(() => expect(onChanged).toHaveBeenCalledTimes(1));
  expect(change).toHaveBeenCalledExactlyOnceWith({ oldPassword: 'secret1', newPassword: 'secret2', confirmPassword: 'secret2' });
  expect(screen.getByRole('button', { name: 'Change password' })).toBeEnabled();
  expect(screen.getByLabelText('New password')).toHaveValue('');
  expect(useToasts.getState().toasts.map((t) => t.text)).toContain('Password changed. Your other sessions were signed out.');
});

test('trader: a check and a refusal show for the whole form; without a password yet none is asked', async () => {
  const change = vi.fn(() => Promise.reject(new ApiError('WRONG_PASSWORD', 'The current password is wrong', 400)));
  const view = renderAt(<PasswordChange variant="trader" texts="security.password" change={change} check={traderRules} />);
  await fill(view.user, 'secret1', '12345');
  await view.user.click(screen.getByRole('button', { name: 'Change password' }));
  expect(screen.getByRole('alert')).toHaveTextContent('Password must be at least 6 characters');
  expect(change).not.toHaveBeenCalled();
  await view.user.type(screen.getByLabelText('New password'), '6');
  await view.user.type(screen.getByLabelText('Confirm new password'), '6');
  await view.user.click(screen.getByRole('button', { name: 'Change password' }));
  expect(await screen.findByRole('alert')).toHaveTextContent('The current password is wrong');
  expect(screen.getByLabelText('Current password')).not.toHaveAccessibleDescription();
  view.unmount();

  const first = vi.fn(() => Promise.resolve({}));
  const { user } = renderAt(<PasswordChange variant="trader" texts="security.password" change={first} check={traderRules} hasPassword={false} />);
  expect(screen.queryByLabelText('Current password')).toBeNull();
  await fill(user, null, 'secret1');
  await user.click(screen.getByRole('button', { name: 'Set password' }));
  await waitFor(() => expect(first).toHaveBeenCalledWith({ oldPassword: '', newPassword: 'secret1', confirmPassword: 'secret1' }));
});

test('admin: checked again as typed once a check failed; a refusal lands on its field', async () => {
  const answers = [new ApiError('WRONG_PASSWORD', 'The current password is wrong', 400), new ApiError('VALIDATION', 'Too common a password', 400, 'newPassword'), new ApiError('FAILED', 'Try later', 500)];
  const change = vi.fn(() => Promise.reject(answers.shift()));
  const { user } = renderAt(<PasswordChange variant="admin" texts="admin.account.password" change={change} check={adminRules} />);
  const submit = () => user.click(screen.getByRole('button', { name: 'Change password' }));
  await submit();
  expect(screen.getByRole('alert')).toHaveTextContent('Please fill in all password fields');
  await fill(user, 'wrong-one', '12345', '1234');
  expect(screen.getByLabelText('New password')).toHaveAccessibleDescription('Password must be at least 6 characters');
  expect(screen.getByLabelText('Confirm new password')).toHaveAccessibleDescription('Passwords do not match');
  await user.type(screen.getByLabelText('New password'), '6');
  await user.type(screen.getByLabelText('Confirm new password'), '56');
  expect(screen.queryByRole('alert')).toBeNull();
  expect(change).not.toHaveBeenCalled();

  await submit();
  await waitFor(() => expect(screen.getByLabelText('Current password')).toHaveAccessibleDescription('The current password is wrong'));
  await user.type(screen.getByLabelText('Current password'), 'x');
  expect(screen.getByLabelText('Current password')).not.toHaveAccessibleDescription();
  await submit();
  await waitFor(() => expect(screen.getByLabelText('New password')).toHaveAccessibleDescription('Too common a password'));
  await submit();
  expect(await screen.findByRole('alert')).toHaveTextContent('Try later');
  expect(change).toHaveBeenCalledTimes(3);
});
