/**
 * Two-factor authentication (decisions §6, RFC 6238): turning it on shows a fresh secret as a
 * QR code of its otpauth URL (and as text, to type in), and takes effect only when a code made
 * with it is confirmed; turning it off needs the login password and a current code. A refusal
 * shows by the field it is about (a wrong password, a wrong code), else for the whole form (too
 * many wrong codes: the server's message says how long to wait).
 */
import { type FormEvent, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';

import { Field, TotpCodeField } from '@/components/field';
import { FormError } from '@/components/form-error';
import { Spinner } from '@/components/states';
import { TotpSecret } from '@/components/totp-secret';
import { ApiError, errorMessage } from '@/lib/api-client';
import { isTotpCode } from '@/lib/validation';
import { useSession } from '@/stores/session';
import { toast } from '@/stores/toast';

import { securityApi } from '../api';

type Step = { kind: 'loading' } | { kind: 'off' } | { kind: 'setup'; secret: string; url: string } | { kind: 'on' } | { kind: 'disabling' };

/** A message per field of the code form, or for the whole of it. */
type Errors = Partial<Record<'code' | 'password' | 'form', string>>;

/** Where the server's refusal belongs: the password, the code, or the whole form. */
function placeServerError(error: unknown): Errors {
  const message = errorMessage(error);
  if (error instanceof ApiError) {
    if (error.code === 'WRONG_PASSWORD' || error.field === 'password') return { password: message };
    if (error.code === 'INVALID_TOTP' || error.field === 'code') return { code: message };
  }
  return { form: message };
}

export function TwoFactor() {
  const { t } = useTranslation();
  const hasPassword = useSession((s) => s.user?.hasPassword ?? true);
  const [step, setStep] = useState<Step>({ kind: 'loading' });
  const [code, setCode] = useState('');
  const [password, setPassword] = useState('');
  const [errors, setErrors] = useState<Errors>({});
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    securityApi.twoFactor().then(
      ({ enabled }) => setStep({ kind: enabled ? 'on' : 'off' }),
      (e: unknown) => {
        setErrors({ form: errorMessage(e) });
        setStep({ kind: 'off' });
      },
    );
  }, []);

  const go = (next: Step) => {
    setStep(next);
    setCode('');
    setPassword('');
    setErrors({});
  };

  const run = async (action: () => Promise<void>) => {
    setBusy(true);
    setErrors({});
    try {
      await action();
    } catch (e) {
      setErrors(placeServerError(e));
    } finally {
      setBusy(false);
    }
  };

  const confirm = (event: FormEvent) => {
    event.preventDefault();
    if (busy) return;
    const disabling = step.kind === 'disabling';
    const found: Errors = {};
    if (!isTotpCode(code)) found.code = t('security.twoFactor.codeInvalid');
    if (disabling && !password) found.password = t('security.twoFactor.passwordRequired');
    setErrors(found);
    if (found.code || found.password) return;
    void run(async () => {
      if (step.kind === 'setup') {
        await securityApi.enable(step.secret, code.trim());
        go({ kind: 'on' });
        toast.success(t('security.twoFactor.enabled'));
      } else {
        await securityApi.disable(code.trim(), password);
        go({ kind: 'off' });
        toast.success(t('security.twoFactor.disabled'));
      }
    });
  };

  const codeForm = (submit: string, cancelTo: Step, withPassword: boolean) => (
    <form className="form" noValidate onSubmit={confirm}>
      {withPassword && (
        <Field
          label={t('security.twoFactor.password')}
          name="password"
          type="password"
          autoComplete="current-password"
          value={password}
          error={errors.password}
          onChange={(e) => {
            setPassword(e.target.value);
            setErrors({ ...errors, password: undefined, form: undefined });
          }}
        />
      )}
      <TotpCodeField
        label={t('security.twoFactor.code')}
        name="code"
        value={code}
        error={errors.code}
        onChange={(e) => {
          setCode(e.target.value);
          setErrors({ ...errors, code: undefined, form: undefined });
        }}
      />
      <FormError text={errors.form} />
      <div className="dialog-actions">
        <button type="button" className="btn btn-secondary" onClick={() => go(cancelTo)}>
          {t('app.cancel')}
        </button>
        <button type="submit" className="btn btn-primary" disabled={busy}>
          {submit}
        </button>
      </div>
    </form>
  );

  return (
    <section className="card" aria-labelledby="twofa-title">
      <div className="section-head">
        <h2 id="twofa-title" className="section-title">
          {t('security.twoFactor.title')}
        </h2>
        {step.kind !== 'loading' && (
          <span className={`pill ${step.kind === 'on' || step.kind === 'disabling' ? 'pill-up' : ''}`} data-testid="twofa-state">
            {t(step.kind === 'on' || step.kind === 'disabling' ? 'security.twoFactor.on' : 'security.twoFactor.off')}
          </span>
        )}
      </div>
      <p className="muted small">{t('security.twoFactor.about')}</p>
      {step.kind === 'loading' && <Spinner />}
      {step.kind === 'off' && (
        <>
          <FormError text={errors.form} />
          <button type="button" className="btn btn-primary" disabled={busy} onClick={() => void run(async () => {
            const setup = await securityApi.setup();
            go({ kind: 'setup', secret: setup.secret, url: setup.otpauthUrl });
          })}>
            {t('security.twoFactor.enable')}
          </button>
        </>
      )}
      {step.kind === 'setup' && (
        <div className="twofa-setup">
          <p>{t('security.twoFactor.scan')}</p>
          <TotpSecret url={step.url} secret={step.secret} qrLabel={t('security.twoFactor.qr')} secretLabel={t('security.twoFactor.secret')} />
          {codeForm(t('security.twoFactor.confirmEnable'), { kind: 'off' }, false)}
        </div>
      )}
      {step.kind === 'on' && (
        <button type="button" className="btn btn-secondary" onClick={() => go({ kind: 'disabling' })}>
          {t('security.twoFactor.disable')}
        </button>
      )}
      {step.kind === 'disabling' &&
        (hasPassword ? (
          <>
            <p>{t('security.twoFactor.disableExplain')}</p>
            {codeForm(t('security.twoFactor.confirmDisable'), { kind: 'on' }, true)}
          </>
        ) : (
          // A wallet user without a password sets one first (the form above on this page).
          <div className="form">
            <p>{t('security.twoFactor.setPasswordFirst')}</p>
            <div className="dialog-actions">
              <button type="button" className="btn btn-secondary" onClick={() => go({ kind: 'on' })}>
                {t('app.cancel')}
              </button>
            </div>
          </div>
        ))}
    </section>
  );
}
