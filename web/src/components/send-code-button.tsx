/**
 * "Send code" (sign-in by e-mail, password reset, adding an e-mail): checks the e-mail field first, then counts down 60 s ("Resend in N seconds");
 * if the send fails it is enabled again at once (spec §4).
 */
import { useState } from 'react';
import { useTranslation } from 'react-i18next';

import { errorMessage } from '@/lib/api-client';

import { useCountdown } from '@/lib/use-countdown';
import { checkEmail } from '@/lib/validation';

interface SendCodeButtonProps {
  email: string;
  send(email: string): Promise<unknown>;
  /** The e-mail field's error (a key), or undefined when it is good. */
  onEmailError(key: string | undefined): void;
  onFailure(message: string | null): void;
  onSent(email: string): void;
}

export function SendCodeButton({ email, send, onEmailError, onFailure, onSent }: SendCodeButtonProps) {
  const { t } = useTranslation();
  const countdown = useCountdown();
  const [sending, setSending] = useState(false);

  const click = async () => {
    const invalid = checkEmail(email);
    onEmailError(invalid);
    if (invalid || countdown.running || sending) return;
    setSending(true);
    onFailure(null);
    countdown.start();
    try {
      await send(email.trim());
      onSent(email.trim());
    } catch (error) {
      countdown.reset();
      onFailure(errorMessage(error, 'auth.errors.sendCodeFailed'));
    } finally {
      setSending(false);
    }
  };

  return (
    <button type="button" className="btn btn-secondary code-button" onClick={click} disabled={countdown.running || sending}>
      {countdown.running ? t('auth.resendIn', { count: countdown.remaining }) : t('auth.sendCode')}
    </button>
  );
}
