/**
 * A new admin: a username (3-20 letters, digits or underscores), a first password (at least 6
 * characters) and one of the four roles, each offered with a line on what it may do. Checked
 * before the call; the server's refusals (a taken name, a field it rejects) land on their field.
 */
import { type FormEvent, useId, useState } from 'react';
import { useTranslation } from 'react-i18next';

import { Dialog } from '@/components/dialog';
import { Field } from '@/components/field';
import { FormError } from '@/components/form-error';
import { useSubmit } from '@/lib/use-submit';

import { createAdmin } from '../api';
import { ROLES, type Role } from '../permissions';
import { type NewAdminErrors, type NewAdminForm, checkNewAdmin, hasErrors } from '../validation';

const EMPTY: NewAdminForm = { username: '', password: '', role: '' };

/** The server's refusals: a taken name, or a field it rejects, on that field. */
const SERVER_FIELDS = { codes: { USERNAME_EXISTS: 'username' }, fields: ['username', 'password', 'role'] } as const;

export function CreateAdminDialog({ onClose, onCreated }: { onClose(): void; onCreated(username: string): void }) {
  const { t } = useTranslation();
  const id = useId();
  const [form, setForm] = useState<NewAdminForm>(EMPTY);
  const [checks, setChecks] = useState<NewAdminErrors>({});
  const [checking, setChecking] = useState(false);
  const request = useSubmit<keyof NewAdminForm>({ ...SERVER_FIELDS, holdOnSuccess: true });

  const set = (key: keyof NewAdminForm) => (event: { target: { value: string } }) => {
    const next = { ...form, [key]: event.target.value };
    setForm(next);
    if (checking) setChecks(checkNewAdmin(next));
    request.setFieldError(key);
    request.setError(null);
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (request.busy) return;
    const found = checkNewAdmin(form);
    setChecks(found);
    setChecking(true);
    request.clear();
    if (hasErrors(found)) return;
    await request.run(async () => {
      const username = form.username.trim();
      // checkNewAdmin found the role among ROLES.
      await createAdmin({ username, password: form.password, role: form.role as Role });
      onCreated(username);
    });
  };

  const message = (key: keyof NewAdminForm) => request.fieldErrors[key] ?? (checks[key] ? t(checks[key]) : undefined);
  const roleError = message('role');
  const roleErrorId = `${id}-role-error`;
  return (
    <Dialog open title={t('admin.admins.addTitle')} onClose={onClose} className="dialog-form">
      <form className="admin-account-form" noValidate onSubmit={(e) => void submit(e)} aria-label={t('admin.admins.addTitle')}>
        <Field label={t('admin.admins.fields.username')} name="username" autoComplete="off" autoCapitalize="none" spellCheck={false} dir="ltr" value={form.username} onChange={set('username')} error={message('username')} hint={t('admin.admins.usernameHint')} />
        <Field label={t('admin.admins.fields.password')} name="password" type="password" autoComplete="new-password" value={form.password} onChange={set('password')} error={message('password')} hint={t('admin.admins.passwordHint')} />
        <fieldset className="field admin-role-choice">
          <legend className="field-label">{t('admin.admins.fields.role')}</legend>
          {ROLES.map((role) => (
            <label key={role} className={form.role === role ? 'admin-role-option chosen' : 'admin-role-option'}>
              <input
                type="radio"
                name="role"
                value={role}
                checked={form.role === role}
                onChange={set('role')}
                aria-labelledby={`${id}-${role}`}
                aria-describedby={[`${id}-${role}-about`, roleError ? roleErrorId : ''].join(' ').trim()}
                aria-invalid={roleError ? true : undefined}
              />
              <span className="admin-role-text">
                <strong id={`${id}-${role}`}>{t(`admin.roles.${role}`)}</strong>
                <span id={`${id}-${role}-about`} className="muted small">
                  {t(`admin.roles.summary.${role}`)}
                </span>
              </span>
            </label>
          ))}
          {roleError && (
            <div id={roleErrorId} className="field-error" role="alert">
              {roleError}
            </div>
          )}
        </fieldset>
        <FormError text={request.error} />
        <div className="admin-action-buttons">
          <button type="button" className="btn btn-secondary" onClick={onClose}>
            {t('app.cancel')}
          </button>
          <button type="submit" className="btn btn-primary" disabled={request.busy}>
            {t('admin.admins.create')}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
