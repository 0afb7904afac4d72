/**
 * The rules of the back-office's account forms, checked before any call: a new admin's
 * username (3-20 letters, digits or underscores, as the server), password (6 to 128
 * characters) and role; and spec §5's change-password rules. Each check answers the catalogue
 * key of its message.
 */
import { ROLES } from './permissions';

export const USERNAME_MIN = 3;
export const USERNAME_MAX = 20;
export const PASSWORD_MIN = 6;
export const PASSWORD_MAX = 128;

export interface NewAdminForm {
  username: string;
  password: string;
  role: string;
}

export type NewAdminErrors = Partial<Record<keyof NewAdminForm, string>>;

export function checkNewAdmin(form: NewAdminForm): NewAdminErrors {
  const errors: NewAdminErrors = {};
  const name = form.username.trim();
  const length = [...name].length;
  if (!name) errors.username = 'admin.admins.errors.usernameRequired';
  else if (length < USERNAME_MIN || length > USERNAME_MAX) errors.username = 'admin.admins.errors.usernameLength';
  else if (!/^[A-Za-z0-9_]+$/.test(name)) errors.username = 'admin.admins.errors.usernameChars';
  const password = [...form.password].length;
  if (!form.password) errors.password = 'admin.admins.errors.passwordRequired';
  else if (password < PASSWORD_MIN) errors.password = 'admin.admins.errors.passwordMin';
  else if (password > PASSWORD_MAX) errors.password = 'admin.admins.errors.passwordMax';
  if (!(ROLES as readonly string[]).includes(form.role)) errors.role = 'admin.admins.errors.roleRequired';
  return errors;
}

export interface OwnPasswordForm {
  current: string;
  next: string;
  confirm: string;
}

export interface OwnPasswordErrors {
  /** A message for the whole form (a field left empty). */
  form?: string;
  next?: string;
  confirm?: string;
}

/** Spec §5: every field filled, the new password at least 6 characters, the two new ones equal. */
export function checkOwnPassword(form: OwnPasswordForm): OwnPasswordErrors {
  if (!form.current || !form.next || !form.confirm) return { form: 'admin.account.password.fillAll' };
  const errors: OwnPasswordErrors = {};
  const length = [...form.next].length;
  if (length < PASSWORD_MIN) errors.next = 'admin.account.password.min';
  else if (length > PASSWORD_MAX) errors.next = 'admin.account.password.max';
  if (form.next !== form.confirm) errors.confirm = 'admin.account.password.mismatch';
  return errors;
}

export function hasErrors(errors: object): boolean {
  return Object.values(errors).some(Boolean);
}
