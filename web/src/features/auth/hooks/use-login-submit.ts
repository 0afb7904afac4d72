/**
 * The submit of a sign-in form: one request at a time, the failure shown as the server's
 * message (or "Login failed"), and the authenticator field asked for when the account has 2FA.
 */
import { useState } from 'react';

import { useSubmit } from '@/lib/use-submit';

import type { LoginData } from '../api';
import { useFinishLogin } from '../session';

const TOTP_CODES = new Set(['TOTP_REQUIRED', 'INVALID_TOTP']);

export function useLoginSubmit() {
  const finish = useFinishLogin();
  /** The server's code for the failure shown (`PASSWORD_SIGN_IN_PAUSED`, ...), if it sent one. */
  const [failureCode, setFailureCode] = useState<string | null>(null);
  const [needsTotp, setNeedsTotp] = useState(false);
  const request = useSubmit({
    fallback: 'auth.errors.loginFailed',
    onError: (_, { code }) => {
      if (code !== null && TOTP_CODES.has(code)) setNeedsTotp(true);
      setFailureCode(code);
    },
  });

  const run = async (call: () => Promise<LoginData>) => {
    if (request.busy) return;
    setFailureCode(null);
    await request.run(async () => finish(await call()));
  };

  return { failure: request.error, failureCode, setFailure: request.setError, needsTotp, busy: request.busy, run };
}
