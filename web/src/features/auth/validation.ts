/**
 * The sign-in rules of spec §5. Each check answers the catalogue key of its message, or
 * nothing when the value is good; forms show the first failing rule under each field.
 */
import { checkEmail } from '@/lib/validation';

export const USERNAME_MIN = 3;
export const USERNAME_MAX = 20;
export const PASSWORD_MIN = 6;
export const RESET_PASSWORD_MIN = 8;
export const CODE_DIGITS = 6;
export const INVITE_CODE_LENGTH = 8;

export type FieldErrors<K extends string> = Partial<Record<K, string>>;

export { checkEmail };

export function checkUsername(value: string, strict = false): string | undefined {
  const name = value.trim();
  if (!name) return 'auth.validation.usernameRequired';
  const length = [...name].length;
  if (length < USERNAME_MIN || length > USERNAME_MAX) return 'auth.validation.usernameLength';
  if (strict && !/^[A-Za-z0-9_]+$/.test(name)) return 'auth.validation.usernameChars';
  return undefined;
}

export function checkPassword(value: string): string | undefined {
  if (!value) return 'auth.validation.passwordRequired';
  if ([...value].length < PASSWORD_MIN) return 'auth.validation.passwordMin';
  return undefined;
}

export function checkStrongPassword(value: string): string | undefined {
  if (!value) return 'auth.validation.passwordRequired';
  if ([...value].length < RESET_PASSWORD_MIN || !/\p{L}/u.test(value) || !/\d/.test(value)) {
    return 'auth.validation.passwordStrong';
  }
  return undefined;
}


export function checkCode(value: string): string | undefined {
  const code = value.trim();
  if (!code) return 'auth.validation.codeRequired';
  if (!new RegExp(`^\\d{${CODE_DIGITS}}$`).test(code)) return 'auth.validation.codeInvalid';
  return undefined;
}

export function checkConfirm(password: string, confirm: string): string | undefined {
  if (!confirm) return 'auth.validation.confirmRequired';
  if (confirm !== password) return 'auth.validation.passwordsMismatch';
  return undefined;
}

/** Optional unless the site requires it (decisions §5); when given, exactly 8 characters. */
export function checkInviteCode(value: string, required: boolean): string | undefined {
  const code = value.trim();
  if (!code) return required ? 'auth.validation.inviteRequired' : undefined;
  if ([...code].length !== INVITE_CODE_LENGTH) return 'auth.validation.inviteLength';
  return undefined;
}

function collect<K extends string>(checks: Record<K, string | undefined>): FieldErrors<K> {
  const errors: FieldErrors<K> = {};
  for (const key of Object.keys(checks) as K[]) {
    const message = checks[key];
    if (message) errors[key] = message;
  }
  return errors;
}

export function validateLogin(form: { username: string; password: string }) {
  return collect({ username: checkUsername(form.username), password: checkPassword(form.password) });
}

export function validateEmailLogin(form: { email: string; code: string }) {
  return collect({ email: checkEmail(form.email), code: checkCode(form.code) });
}

export interface RegisterForm {
  username: string;
  email: string;
  password: string;
  confirmPassword: string;
  inviteCode: string;
  agreeTerms: boolean;
}

export function validateRegister(form: RegisterForm, inviteRequired: boolean) {
  return collect({
    username: checkUsername(form.username, true),
    email: checkEmail(form.email),
    password: checkPassword(form.password),
    confirmPassword: checkConfirm(form.password, form.confirmPassword),
    inviteCode: checkInviteCode(form.inviteCode, inviteRequired),
    agreeTerms: form.agreeTerms ? undefined : 'auth.validation.terms',
  });
}

export function validateReset(form: { password: string; confirmPassword: string }) {
  return collect({
    password: checkStrongPassword(form.password),
    confirmPassword: checkConfirm(form.password, form.confirmPassword),
  });
}

export function hasErrors(errors: Record<string, string | undefined>): boolean {
  return Object.values(errors).some(Boolean);
}
