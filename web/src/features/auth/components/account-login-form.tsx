/** Username and password (spec §5), and the authenticator code when the account has 2FA. */
import { type FormEvent, type ReactNode, useState } from 'react';
import { useTranslation } from 'react-i18next';

import { Field } from '@/components/field';

import { authApi } from '../api';
import { useLoginSubmit } from '../hooks/use-login-submit';
import { type FieldErrors, hasErrors, validateLogin } from '../validation';
import { FormFailure, SubmitButton, TotpField } from './form-parts';

export function AccountLoginForm({ remember, extras }: { remember: boolean; extras: ReactNode }) {
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
    void login.run(() => authApi.login({ username: form.username.trim(), password: form.password, remember, totpCode }));
  };

  const set = (key: keyof typeof form) => (e: React.ChangeEvent<HTMLInputElement>) => setForm({ ...form, [key]: e.target.value });
  return (
    <form onSubmit={submit} noValidate>
      <FormFailure text={login.failure} />
      <Field label={t('auth.username')} name="username" autoComplete="username" value={form.username} onChange={set('username')} error={errors.username && t(errors.username)} />
      <Field label={t('auth.password')} name="password" type="password" autoComplete="current-password" value={form.password} onChange={set('password')} error={errors.password && t(errors.password)} />
      {login.needsTotp && <TotpField value={form.totpCode} onChange={set('totpCode')} />}
      {extras}
      <SubmitButton busy={login.busy} />
    </form>
  );
}
