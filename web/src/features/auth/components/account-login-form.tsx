/**
 * Username and password (spec §5), and the authenticator code when the account has 2FA. When
 * too many wrong passwords paused password sign-in on the account, the server's message says
 * so, and (if the site offers it) a button leads to the e-mail code sign-in, which still works.
 */
import { type FormEvent, type ReactNode, useState } from 'react';
import { useTranslation } from 'react-i18next';

import { Field } from '@/components/field';

import { authApi } from '../api';
import { deviceTokenFor } from '../device-tokens';
import { useLoginSubmit } from '../hooks/use-login-submit';
import { type FieldErrors, hasErrors, validateLogin } from '../validation';
import { FormFailure, SubmitButton, TotpField } from './form-parts';

interface Props {
  remember: boolean;
  extras: ReactNode;
  /** Switches to the e-mail code sign-in; absent when the site does not offer it. */
  onUseEmailCode?: () => void;
}

export function AccountLoginForm({ remember, extras, onUseEmailCode }: Props) {
  const { t } = useTranslation();
  const login = useLoginSubmit();
  const [form, setForm] = useState({ username: '', password: '', totpCode: '' });
  const [errors, setErrors] = useState<FieldErrors<'username' | 'password'>>({});

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const found = validateLogin(form);
    setErrors(found);
    if (hasErrors(found)) return;
    const totpCode = login.needsTotp ? form.totpCode.trim() : undefined;
    const username = form.username.trim();
    const deviceToken = deviceTokenFor('user', username);
    void login.run(() => authApi.login({ username, password: form.password, remember, totpCode, deviceToken }));
  };

  const set = (key: keyof typeof form) => (e: React.ChangeEvent<HTMLInputElement>) => setForm({ ...form, [key]: e.target.value });
  return (
    <form onSubmit={submit} noValidate>
      <FormFailure text={login.failure} />
      {login.failureCode === 'PASSWORD_SIGN_IN_PAUSED' && onUseEmailCode && (
        <button type="button" className="btn btn-secondary btn-block auth-switch" onClick={onUseEmailCode}>
          {t('auth.useEmailCode')}
        </button>
      )}
      <Field label={t('auth.username')} name="username" autoComplete="username" value={form.username} onChange={set('username')} error={errors.username && t(errors.username)} />
      <Field label={t('auth.password')} name="password" type="password" autoComplete="current-password" value={form.password} onChange={set('password')} error={errors.password && t(errors.password)} />
      {login.needsTotp && <TotpField value={form.totpCode} onChange={set('totpCode')} />}
      {extras}
      <SubmitButton busy={login.busy} />
    </form>
  );
}
