/**
 * Forgot password in three steps (spec §2, §5): verify the e-mail with a 6-digit code, set a
 * new password (8+ characters with letters and digits, confirmed), done.
 */
import { type FormEvent, useState } from 'react';
import { useTranslation } from 'react-i18next';

import { Field } from '@/components/field';
import { useSubmit } from '@/lib/use-submit';

import { authApi } from '../api';
import { type FieldErrors, hasErrors, validateEmailLogin, validateReset } from '../validation';
import { FormFailure, SubmitButton } from './form-parts';
import { EmailCodeFields } from './email-code-fields';

type Step = 'verify' | 'reset' | 'done';
const STEPS: Step[] = ['verify', 'reset', 'done'];

export function ForgotPassword({ onBack }: { onBack(): void }) {
  const { t } = useTranslation();
  const [step, setStep] = useState<Step>('verify');
  const [form, setForm] = useState({ email: '', code: '', password: '', confirmPassword: '' });
  const [resetToken, setResetToken] = useState('');
  const [errors, setErrors] = useState<FieldErrors<keyof typeof form>>({});
  const [notice, setNotice] = useState<string | null>(null);
  const request = useSubmit();
  const failure = request.error;
  const busy = request.busy;
  const run = (call: () => Promise<void>, fallback: string) => request.run(call, { fallback });

  const verify = (event: FormEvent) => {
    event.preventDefault();
    const found = validateEmailLogin(form);
    setErrors(found);
    if (hasErrors(found) || busy) return;
    void run(async () => {
      const answer = await authApi.forgotVerify(form.email.trim(), form.code.trim());
      setResetToken(answer.resetToken);
      setStep('reset');
    }, 'auth.errors.verifyFailed');
  };

  const reset = (event: FormEvent) => {
    event.preventDefault();
    const found = validateReset(form);
    setErrors(found);
    if (hasErrors(found) || busy) return;
    void run(async () => {
      await authApi.forgotReset(resetToken, form.password, form.confirmPassword);
      setStep('done');
    }, 'auth.errors.resetFailed');
  };

  const set = (key: keyof typeof form) => (e: React.ChangeEvent<HTMLInputElement>) => setForm({ ...form, [key]: e.target.value });
  const error = (key: keyof typeof form) => (errors[key] ? t(errors[key]) : undefined);
  const labels: Record<Step, string> = {
    verify: t('auth.forgot.stepVerify'),
    reset: t('auth.forgot.stepReset'),
    done: t('auth.forgot.stepDone'),
  };
  return (
    <section aria-labelledby="forgot-title">
      <h2 id="forgot-title" className="auth-subtitle">
        {t('auth.forgot.title')}
      </h2>
      <ol className="steps">
        {STEPS.map((s, i) => (
          <li key={s} className={s === step ? 'step active' : 'step'} aria-current={s === step ? 'step' : undefined}>
            <span className="step-number">{i + 1}</span>
            {labels[s]}
          </li>
        ))}
      </ol>
      <FormFailure text={failure} />
      {notice && step === 'verify' && !failure && (
        <div className="form-note" role="status">
          {notice}
        </div>
      )}
      {step === 'verify' && (
        <form onSubmit={verify} noValidate>
          <EmailCodeFields
            email={form.email}
            code={form.code}
            onChange={set}
            errors={errors}
            send={authApi.forgotSendCode}
            onEmailError={(key) => setErrors((e) => ({ ...e, email: key }))}
            onFailure={request.setError}
            onSent={(email) => setNotice(t('auth.codeSent', { email }))}
          />
          <SubmitButton busy={busy} label={t('auth.forgot.verify')} />
        </form>
      )}
      {step === 'reset' && (
        <form onSubmit={reset} noValidate>
          <Field label={t('auth.forgot.newPassword')} name="password" type="password" autoComplete="new-password" value={form.password} onChange={set('password')} error={error('password')} />
          <Field label={t('auth.confirmPassword')} name="confirmPassword" type="password" autoComplete="new-password" value={form.confirmPassword} onChange={set('confirmPassword')} error={error('confirmPassword')} />
          <SubmitButton busy={busy} label={t('auth.forgot.reset')} />
        </form>
      )}
      {step === 'done' && (
        <div className="form-note" role="status">
          {t('auth.forgot.done')}
        </div>
      )}
      <button type="button" className="link-button auth-back" onClick={onBack}>
        {t('auth.forgot.backToLogin')}
      </button>
    </section>
  );
}
