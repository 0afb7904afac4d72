/**
 * The submit of a sign-in form: one request at a time, the failure shown as the server's
 * message (or "Login failed"), and the authenticator field asked for when the account has 2FA.
 */
import { useState } from 'react';

import { ApiError, errorMessage } from '@/lib/api-client';

import type { LoginData } from '../api';
import { useFinishLogin } from '../session';

const TOTP_CODES = new Set(['TOTP_REQUIRED', 'INVALID_TOTP']);

export function useLoginSubmit() {
  const finish = useFinishLogin();
  const [failure, setFailure] = useState<string | null>(null);
  /** The server's code for the failure shown (`PASSWORD_SIGN_IN_PAUSED`, ...), if it sent one. */
  const [failureCode, setFailureCode] = useState<string | null>(null);
  const [needsTotp, setNeedsTotp] = useState(false);
  const [busy, setBusy] = useState(false);

  const run = async (call: () => Promise<LoginData>) => {
    if (busy) return;
    setBusy(true);
    setFailure(null);
    setFailureCode(null);
    try {
      finish(await call());
    } catch (error) {
      if (error instanceof ApiError && TOTP_CODES.has(error.code)) setNeedsTotp(true);
      setFailureCode(error instanceof ApiError ? error.code : null);
      setFailure(errorMessage(error, 'auth.errors.loginFailed'));
    } finally {
      setBusy(false);
    }
  };

  return { failure, failureCode, setFailure, needsTotp, busy, run };
}
