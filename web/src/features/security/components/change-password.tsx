/**
 * Change (or, for a wallet user, set) the login password: spec §5's rules and messages, and
 * its notice that withdrawals wait 24 hours after a change. Other sessions end; this one stays.
 */
import { type FormEvent, useState } from 'react';
import { useTranslation } from 'react-i18next';

import { Field } from '@/components/field';
import { FormError } from '@/components/form-error';
import { errorMessage } from '@/lib/api-client';
import { useSession } from '@/stores/session';
import { toast } from '@/stores/toast';

import { securityApi } from '../api';
import { type PasswordForm, checkPasswordChange } from '../validation';

const EMPTY: PasswordForm = { current: '', next: '', confirm: '' };

export function ChangePassword({ onChanged }: { onChanged?(): void }) {
  const { t } = useTranslation();
  const hasPassword = useSession((s) => s.user?.hasPassword ?? true);
  const [form, setForm] = useState<PasswordForm>(EMPTY);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const set = (key: keyof PasswordForm) => (e: { target: { value: string } }) => setForm({ ...form, [key]: e.target.value });

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (busy) return;
    const problem = checkPasswordChange(form, hasPassword);
    setError(problem ? t(problem) : null);
    if (problem) return;
    setBusy(true);
    try {
      await securityApi.changePassword({ oldPassword: hasPassword ? form.current : '', newPassword: form.next, confirmPassword: form.confirm });
      setForm(EMPTY);
      const user = useSession.getState().user;
      if (user && !user.hasPassword) useSession.getState().setUser({ ...user, hasPassword: true });
      toast.success(t('security.password.changed'));
      onChanged?.();
    } catch (e) {
      setError(errorMessage(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="card form" noValidate onSubmit={submit} aria-labelledby="password-title">
      <h2 id="password-title" className="section-title">
        {t(hasPassword ? 'security.password.title' : 'security.password.setTitle')}
      </h2>
      {hasPassword && <Field label={t('security.password.current')} type="password" autoComplete="current-password" value={form.current} onChange={set('current')} />}
      <Field label={t('security.password.new')} type="password" autoComplete="new-password" value={form.next} onChange={set('next')} />
      <Field label={t('security.password.confirm')} type="password" autoComplete="new-password" value={form.confirm} onChange={set('confirm')} />
      <p className="muted small">{t('security.password.notice')}</p>
      <FormError text={error} />
      <button type="submit" className="btn btn-primary" disabled={busy}>
        {t(hasPassword ? 'security.password.submit' : 'security.password.setSubmit')}
      </button>
    </form>
  );
}
