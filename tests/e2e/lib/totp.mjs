// Authenticator codes for the journeys, made as an authenticator app makes them (otpauth).
// The server accepts a code of the current 30-second step or of one step either side, and
// each step once per account (a used code, or any earlier step, is INVALID_TOTP). So every
// code given here is of a later step than the one before: the current step first, then the
// next one (accepted a step early), and for a further code the clock is awaited until it
// reaches the step just before that code's own, no longer.
import * as OTPAuth from 'otpauth';

const STEP_MS = 30_000;

/** The codes of one secret, each of a later step than the last; call it once per code needed. */
export function totpCodes(secret) {
  const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: STEP_MS / 1_000 });
  let last = -Infinity;
  return async function nextCode() {
    const step = Math.max(last + 1, Math.floor(Date.now() / STEP_MS));
    // The server takes a step at most one ahead of its clock.
    const wait = (step - 1) * STEP_MS - Date.now();
    if (wait > 0) await new Promise((resume) => setTimeout(resume, wait));
    last = step;
    return totp.generate({ timestamp: step * STEP_MS });
  };
}
