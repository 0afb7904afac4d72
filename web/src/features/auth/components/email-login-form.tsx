/** E-mail and a 6-digit code (spec §5), shown only when the site's `emailLogin` is on. */
import { type FormEvent, type ReactNode, useState } from 'react';
import { useTranslation } from 'react-i18next';

import { authApi } from '../api';
import { useLoginSubmit } from '../hooks/use-login-submit';
import { type FieldErrors, hasErrors, validateEmailLogin } from '../validation';
import { FormFailure, SubmitButton, TotpField } from './form-parts';
import { EmailCodeFields } from './email-code-fields';

export function EmailLoginForm({ remember, extras }: { remember: boolean; extras: ReactNode }) {
  const { t } = useTranslation();
  const login = useLoginSubmit();
  const [form, setForm] = useState({ email: '', code: '', totpCode: '' });
  const [errors, setErrors] = useState<FieldErrors<'email' | 'code'>>({});
  const [notice, setNotice] = useState<string | null>(null);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const found = validateEmailLogin(form);
    setErrors(found);
    if (hasErrors(found)) return;
    const totpCode = login.needsTotp ? form.totpCode.trim() : undefined;
    void login.run(() => authApi.emailLogin({ email: form.email.trim(), code: form.code.trim(), remember, totpCode }));
  };

  const set = (key: keyof typeof form) => (e: React.ChangeEvent<HTMLInputElement>) => setForm({ ...form, [key]: e.target.value });
  return (
    <form onSubmit={submit} noValidate>
      <FormFailure text={login.failure} />
      {notice && !login.failure && (
        <div className="form-note" role="status">
          {notice}
        </div>
      )}
      <EmailCodeFields
        email={form.email}
        code={form.code}
        onChange={set}
        errors={errors}
        send={authApi.sendLoginCode}
        onEmailError={(key) => setErrors((e) => ({ ...e, email: key }))}
        onFailure={login.setFailure}
        onSent={(email) => setNotice(t('auth.codeSent', { email }))}
      />
      {login.needsTotp && <TotpField value={form.totpCode} onChange={set('totpCode')} />}
      {extras}
      <SubmitButton busy={login.busy} />
    </form>
  );
}
