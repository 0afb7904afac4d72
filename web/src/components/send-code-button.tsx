/**
 * "Send code" (sign-in by e-mail, password reset, adding an e-mail): checks the e-mail field first, then counts down 60 s ("Resend in N seconds");
 * if the send fails it is enabled again at once (spec §4). Its failure is the form's to show.
 */
import { useTranslation } from 'react-i18next';

import { useCountdown } from '@/lib/use-countdown';
import { useSubmit } from '@/lib/use-submit';
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
  const sending = useSubmit({
    fallback: 'auth.errors.sendCodeFailed',
    onError: (_, { message }) => {
      countdown.reset();
      onFailure(message);
    },
  });

  const click = async () => {
    const invalid = checkEmail(email);
    onEmailError(invalid);
    if (invalid || countdown.running || sending.busy) return;
    onFailure(null);
    countdown.start();
    await sending.run(async () => {
      await send(email.trim());
      onSent(email.trim());
    });
  };

  return (
    <button type="button" className="btn btn-secondary code-button" onClick={click} disabled={countdown.running || sending.busy}>
      {countdown.running ? t('auth.resendIn', { count: countdown.remaining }) : t('auth.sendCode')}
    </button>
  );
}
