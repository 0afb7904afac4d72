/**
 * The signed-in admin changes their own password (spec §5: every field filled, the new one at
 * least 6 characters, the two new ones equal), checked before the call and again as the admin
 * types once a check has failed. The server then ends every other session of this admin; this
 * one stays.
 */
import { type ChangeEvent, type FormEvent, type Ref, useState } from 'react';
import { useTranslation } from 'react-i18next';

import { Field } from '@/components/field';
import { FormError } from '@/components/form-error';
import { ApiError, errorMessage } from '@/lib/api-client';
import { toast } from '@/stores/toast';

import { changeOwnPassword } from '../api';
import { type OwnPasswordErrors, type OwnPasswordForm, checkOwnPassword, hasErrors } from '../validation';

const EMPTY: OwnPasswordForm = { current: '', next: '', confirm: '' };

type ServerErrors = Partial<Record<'form' | keyof OwnPasswordForm, string>>;

/** Where the server's refusal belongs: the current password, a new one, or the whole form. */
function placeServerError(error: unknown): ServerErrors {
  const message = errorMessage(error);
  if (!(error instanceof ApiError)) return { form: message };
  if (error.code === 'WRONG_PASSWORD') return { current: message };
  if (error.field === 'newPassword') return { next: message };
  if (error.field === 'confirmPassword') return { confirm: message };
  return { form: message };
}

export function OwnPassword({ ref }: { ref?: Ref<HTMLElement> }) {
  const { t } = useTranslation();
  const [form, setForm] = useState<OwnPasswordForm>(EMPTY);
  const [checks, setChecks] = useState<OwnPasswordErrors>({});
  const [checking, setChecking] = useState(false);
  const [server, setServer] = useState<ServerErrors>({});
  const [busy, setBusy] = useState(false);

  const set = (key: keyof OwnPasswordForm) => (event: ChangeEvent<HTMLInputElement>) => {
    const next = { ...form, [key]: event.target.value };
    setForm(next);
    if (checking) setChecks(checkOwnPassword(next));
    setServer({});
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (busy) return;
    const found = checkOwnPassword(form);
    setChecks(found);
    setChecking(true);
    setServer({});
    if (hasErrors(found)) return;
    setBusy(true);
    try {
      await changeOwnPassword({ oldPassword: form.current, newPassword: form.next, confirmPassword: form.confirm });
      setForm(EMPTY);
      setChecking(false);
      toast.success(t('admin.account.password.changed'));
    } catch (error) {
      setServer(placeServerError(error));
    } finally {
      setBusy(false);
    }
  };

  const message = (key: 'next' | 'confirm') => server[key] ?? (checks[key] ? t(checks[key]) : undefined);
  return (
    <section id="password" ref={ref} className="admin-card" aria-labelledby="admin-password-title" tabIndex={-1}>
      <h2 id="admin-password-title" className="admin-card-title">
        {t('admin.account.password.title')}
      </h2>
      <form className="admin-account-form" noValidate onSubmit={(e) => void submit(e)}>
        <Field label={t('admin.account.password.current')} name="oldPassword" type="password" autoComplete="current-password" value={form.current} onChange={set('current')} error={server.current} />
        <Field label={t('admin.account.password.new')} name="newPassword" type="password" autoComplete="new-password" value={form.next} onChange={set('next')} error={message('next')} />
        <Field label={t('admin.account.password.confirm')} name="confirmPassword" type="password" autoComplete="new-password" value={form.confirm} onChange={set('confirm')} error={message('confirm')} />
        <FormError text={server.form ?? (checks.form ? t(checks.form) : null)} />
        <p className="admin-note small">{t('admin.account.password.notice')}</p>
        <button type="submit" className="btn btn-primary" disabled={busy}>
          {t('admin.account.password.submit')}
        </button>
      </form>
    </section>
  );
}
