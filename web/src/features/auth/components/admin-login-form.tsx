/**
 * Administrator sign-in (spec §5: username 3-20 characters, password at least 6): the admin
 * token and info are kept under `admin_token` and `admin_info`, apart from a trader's session.
 * An admin who turned two-factor sign-in on is asked, as a second step, for the 6-digit code
 * of their authenticator app (the server answers TOTP_REQUIRED, or INVALID_TOTP for a wrong
 * code); the username and password stay as typed, and the sign-in is sent again with the code.
 * The device token of this admin's earlier sign-ins here is sent along (it lets a sign-in past
 * the account's budget of failed ones), and each sign-in's new one is kept.
 */
import { type ChangeEvent, type FormEvent, useState } from 'react';
import { useTranslation } from 'react-i18next';

import { Field, TotpCodeField } from '@/components/field';
import { adminApi } from '@/lib/admin-api';
import { useSubmit } from '@/lib/use-submit';
import { isTotpCode } from '@/lib/validation';
import { useAdminSession } from '@/stores/admin-session';
import type { Schemas } from '@/types/api';

import { deviceTokenFor, rememberDevice } from '../device-tokens';
import { type FieldErrors, hasErrors, validateLogin } from '../validation';
import { FormFailure, SubmitButton } from './form-parts';

type Form = { username: string; password: string; totpCode: string };

export function AdminLoginForm({ onSignedIn }: { onSignedIn(): void }) {
  const { t } = useTranslation();
  const [form, setForm] = useState<Form>({ username: '', password: '', totpCode: '' });
  const [errors, setErrors] = useState<FieldErrors<'username' | 'password'>>({});
  /** The second step: the server asked for the authenticator code. */
  const [needsCode, setNeedsCode] = useState(false);
  const request = useSubmit<'totpCode'>({
    // TOTP_REQUIRED is a step, not a failure: the field appears with its hint.
    quiet: ['TOTP_REQUIRED'],
    codes: { INVALID_TOTP: 'totpCode' },
    fallback: 'auth.errors.loginFailed',
    // Signed in: the back-office opens, and the form stays busy until it goes.
    holdOnSuccess: true,
    onError: (_, { code }) => {
      if (code === 'TOTP_REQUIRED' || code === 'INVALID_TOTP') setNeedsCode(true);
    },
  });

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (request.busy) return;
    const found = validateLogin(form);
    setErrors(found);
    const badCode = needsCode && !isTotpCode(form.totpCode);
    request.setFieldError('totpCode', badCode ? t('admin.login.codeInvalid') : undefined);
    if (hasErrors(found) || badCode) return;
    await request.run(async () => {
      const username = form.username.trim();
      const deviceToken = deviceTokenFor('admin', username);
      const answer = await adminApi.post<Schemas['AdminLogin']>('/admin/login', {
        username,
        password: form.password,
        ...(needsCode ? { totpCode: form.totpCode.trim() } : {}),
        ...(deviceToken ? { deviceToken } : {}),
      });
      useAdminSession.getState().signIn(answer.token, answer.admin);
      rememberDevice('admin', answer.admin.username, answer.deviceToken);
      onSignedIn();
    });
  };

  const set = (key: keyof Form) => (e: ChangeEvent<HTMLInputElement>) => {
    setForm({ ...form, [key]: e.target.value, ...(key === 'username' && needsCode ? { totpCode: '' } : {}) });
    // Another admin's name: their own sign-in decides whether a code is asked for.
    if (key === 'username' && needsCode) {
      setNeedsCode(false);
      request.setFieldError('totpCode');
    }
    if (key === 'totpCode') request.setFieldError('totpCode');
  };
  return (
    <form onSubmit={(e) => void submit(e)} noValidate>
      <FormFailure text={request.error} />
      <Field label={t('auth.username')} name="username" autoComplete="username" value={form.username} onChange={set('username')} error={errors.username && t(errors.username)} />
      <Field label={t('auth.password')} name="password" type="password" autoComplete="current-password" value={form.password} onChange={set('password')} error={errors.password && t(errors.password)} />
      {needsCode && <TotpCodeField label={t('admin.login.code')} value={form.totpCode} onChange={set('totpCode')} error={request.fieldErrors.totpCode} hint={t('admin.login.codeHint')} autoFocus />}
      <SubmitButton busy={request.busy} />
    </form>
  );
}
