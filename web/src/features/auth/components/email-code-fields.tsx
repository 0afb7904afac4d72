/** The e-mail field and the code field with its send button, shared by e-mail sign-in and reset. */
import type { ChangeEvent } from 'react';
import { useTranslation } from 'react-i18next';

import { Field } from '@/components/field';

import { SendCodeButton } from '@/components/send-code-button';

interface EmailCodeFieldsProps {
  email: string;
  code: string;
  onChange(key: 'email' | 'code'): (e: ChangeEvent<HTMLInputElement>) => void;
  errors: { email?: string; code?: string };
  send(email: string): Promise<unknown>;
  onEmailError(key: string | undefined): void;
  onFailure(message: string | null): void;
  onSent(email: string): void;
}

export function EmailCodeFields({ email, code, onChange, errors, send, onEmailError, onFailure, onSent }: EmailCodeFieldsProps) {
  const { t } = useTranslation();
  return (
    <>
      <Field label={t('auth.email')} name="email" type="email" autoComplete="email" dir="ltr" value={email} onChange={onChange('email')} error={errors.email && t(errors.email)} />
      <Field
        label={t('auth.code')}
        name="code"
        inputMode="numeric"
        autoComplete="one-time-code"
        maxLength={6}
        dir="ltr"
        value={code}
        onChange={onChange('code')}
        error={errors.code && t(errors.code)}
        after={<SendCodeButton email={email} send={send} onEmailError={onEmailError} onFailure={onFailure} onSent={onSent} />}
      />
    </>
  );
}
