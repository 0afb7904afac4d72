/** Checks shared by more than one feature. Each answers the catalogue key of its message. */

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** An e-mail address: required, and shaped like one (spec §5). */
export function checkEmail(value: string): string | undefined {
  const email = value.trim();
  if (!email) return 'auth.validation.emailRequired';
  if (!EMAIL.test(email)) return 'auth.validation.emailInvalid';
  return undefined;
}

/** Digits of an authenticator (TOTP, RFC 6238) code. */
export const TOTP_DIGITS = 6;

/** Is `value` an authenticator code: exactly 6 digits (spaces around it ignored)? */
export function isTotpCode(value: string): boolean {
  return new RegExp(`^\\d{${TOTP_DIGITS}}$`).test(value.trim());
}
