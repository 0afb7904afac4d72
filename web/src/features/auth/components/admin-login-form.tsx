/**
 * Administrator sign-in (spec §5: username 3-20 characters, password at least 6): the admin
 * token and info are kept under `admin_token` and `admin_info`, apart from a trader's session.
 */
import { type FormEvent, useState } from 'react';
import { useTranslation } from 'react-i18next';

import { Field } from '@/components/field';
import { adminApi } from '@/lib/admin-api';
import { errorMessage } from '@/lib/api-client';
import { type AdminInfo, useAdminSession } from '@/stores/admin-session';

import { type FieldErrors, hasErrors, validateLogin } from '../validation';
import { FormFailure, SubmitButton } from './form-parts';

export function AdminLoginForm({ onSignedIn }: { onSignedIn(): void }) {
  const { t } = useTranslation();
  const [form, setForm] = useState({ username: '', password: '' });
  const [errors, setErrors] = useState<FieldErrors<'username' | 'password'>>({});
  const [failure, setFailure] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const found = validateLogin(form);
    setErrors(found);
    if (hasErrors(found) || busy) return;
    setBusy(true);
    setFailure(null);
    try {
      const answer = await adminApi.post<{ token: string; admin: AdminInfo }>('/admin/login', {
        username: form.username.trim(),
        password: form.password,
      });
      useAdminSession.getState().signIn(answer.token, answer.admin);
      onSignedIn();
    } catch (error) {
      setFailure(errorMessage(error));
      setBusy(false);
    }
  };

  const set = (key: keyof typeof form) => (e: React.ChangeEvent<HTMLInputElement>) => setForm({ ...form, [key]: e.target.value });
  return (
    <form onSubmit={(e) => void submit(e)} noValidate>
      <FormFailure text={failure} />
      <Field label={t('auth.username')} name="username" autoComplete="username" value={form.username} onChange={set('username')} error={errors.username && t(errors.username)} />
      <Field label={t('auth.password')} name="password" type="password" autoComplete="current-password" value={form.password} onChange={set('password')} error={errors.password && t(errors.password)} />
      <SubmitButton busy={busy} />
    </form>
  );
}
