/**
 * Registration (spec §5): username, e-mail, password and its confirmation, the invite code
 * (from `?code=`; required only when the site's `inviteCodeRequired` is on) and the terms.
 * Success switches to the Login tab with a cleared form (spec §4).
 */
import { type FormEvent, useState } from 'react';
import { useTranslation } from 'react-i18next';

import { Field } from '@/components/field';
import { useSubmit } from '@/lib/use-submit';
import { useSite } from '@/stores/site';
import { toast } from '@/stores/toast';

import { authApi } from '../api';
import { type FieldErrors, type RegisterForm as Form, hasErrors, validateRegister } from '../validation';
import { FormFailure, SubmitButton } from './form-parts';

/** Server codes about one field, each with its own message in the catalogue (spec §8). */
const REGISTER_FIELDS = {
  codes: { INVALID_INVITE_CODE: 'inviteCode', USERNAME_EXISTS: 'username', EMAIL_EXISTS: 'email' },
  texts: { INVALID_INVITE_CODE: 'auth.validation.inviteInvalid', USERNAME_EXISTS: 'auth.errors.usernameExists', EMAIL_EXISTS: 'auth.errors.emailExists' },
} as const;

function emptyForm(code: string): Form {
  return { username: '', email: '', password: '', confirmPassword: '', inviteCode: code, agreeTerms: false };
}

export function RegisterForm({ initialCode, onRegistered }: { initialCode: string; onRegistered(): void }) {
  const { t } = useTranslation();
  const inviteRequired = useSite((s) => s.info?.inviteCodeRequired ?? false);
  const [form, setForm] = useState<Form>(() => emptyForm(initialCode));
  const [errors, setErrors] = useState<FieldErrors<keyof Form>>({});
  const request = useSubmit<keyof Form>({ ...REGISTER_FIELDS, fallback: 'auth.errors.registerFailed' });

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const found = validateRegister(form, inviteRequired);
    setErrors(found);
    request.clear();
    if (hasErrors(found) || request.busy) return;
    await request.run(async () => {
      const inviteCode = form.inviteCode.trim() || undefined;
      await authApi.register({ ...form, username: form.username.trim(), email: form.email.trim(), inviteCode });
      setForm(emptyForm(''));
      toast.success(t('auth.registered'));
      onRegistered();
    });
  };

  const set = (key: keyof Form) => (e: React.ChangeEvent<HTMLInputElement>) =>
    setForm({ ...form, [key]: e.target.type === 'checkbox' ? e.target.checked : e.target.value });
  const error = (key: keyof Form) => (errors[key] ? t(errors[key]) : request.fieldErrors[key]);
  return (
    <form onSubmit={submit} noValidate>
      <FormFailure text={request.error} />
      <Field label={t('auth.username')} name="username" autoComplete="username" value={form.username} onChange={set('username')} error={error('username')} />
      <Field label={t('auth.email')} name="email" type="email" autoComplete="email" dir="ltr" value={form.email} onChange={set('email')} error={error('email')} />
      <Field label={t('auth.password')} name="password" type="password" autoComplete="new-password" value={form.password} onChange={set('password')} error={error('password')} />
      <Field label={t('auth.confirmPassword')} name="confirmPassword" type="password" autoComplete="new-password" value={form.confirmPassword} onChange={set('confirmPassword')} error={error('confirmPassword')} />
      <Field
        label={inviteRequired ? t('auth.inviteCode') : t('auth.inviteCodeOptional')}
        name="inviteCode"
        autoComplete="off"
        dir="ltr"
        maxLength={8}
        value={form.inviteCode}
        onChange={set('inviteCode')}
        error={error('inviteCode')}
      />
      <div className="field">
        <label className="checkbox">
          <input type="checkbox" name="agreeTerms" checked={form.agreeTerms} onChange={set('agreeTerms')} aria-invalid={errors.agreeTerms ? true : undefined} />
          {t('auth.agreeTerms')}
        </label>
        {errors.agreeTerms && (
          <div className="field-error" role="alert">
            {t(errors.agreeTerms)}
          </div>
        )}
      </div>
      <SubmitButton busy={request.busy} label={t('auth.registerButton')} />
    </form>
  );
}
