/**
 * The change-password rules of spec §5: every field filled (one message for all), the new
 * password at least 6 characters, and the two new ones equal. A user without a password yet
 * (a wallet sign-in) sets one without a current password.
 */
export const PASSWORD_MIN = 6;

export interface PasswordForm {
  current: string;
  next: string;
  confirm: string;
}

export function checkPasswordChange(form: PasswordForm, hasPassword: boolean): string | undefined {
  if ((hasPassword && !form.current) || !form.next || !form.confirm) return 'security.validation.fillAll';
  if ([...form.next].length < PASSWORD_MIN) return 'security.validation.min';
  if (form.next !== form.confirm) return 'security.validation.mismatch';
  return undefined;
}
