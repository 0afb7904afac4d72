/**
 * The signed-in admin's two-factor sign-in (RFC 6238): turning it on shows a fresh secret as a
 * QR code and as text, and takes effect only once a code made with it is confirmed; turning it
 * off needs the admin's password and a current code. From then on the back-office's sign-in
 * asks for the code. A refusal shows by the field it is about (a wrong password, a wrong code),
 * else for the whole form (too many wrong codes: the server's message says how long to wait).
 */
import { type FormEvent, useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';

import { FormError } from '@/components/form-error';
import { ErrorState, Spinner } from '@/components/states';
import { Field, TotpCodeField } from '@/components/field';
import { TotpSecret } from '@/components/totp-secret';
import { ApiError, errorMessage } from '@/lib/api-client';
import { isTotpCode } from '@/lib/validation';
import { toast } from '@/stores/toast';

import { ownTwoFactor } from '../api';

type Step =
  | { kind: 'loading' }
  | { kind: 'failed'; message: string }
  | { kind: 'off' }
  | { kind: 'setup'; secret: string; url: string }
  | { kind: 'on' }
  | { kind: 'disabling' };

/** A message per field of the code form. */
type FieldErrors = Partial<Record<'code' | 'password', string>>;

/** The field a refusal is about, if it is about one. */
function fieldOf(error: unknown): keyof FieldErrors | null {
  if (!(error instanceof ApiError)) return null;
  if (error.code === 'WRONG_PASSWORD' || error.field === 'password') return 'password';
  if (error.code === 'INVALID_TOTP' || error.field === 'code') return 'code';
  return null;
}

export function OwnTwoFactor() {
  const { t } = useTranslation();
  const [step, setStep] = useState<Step>({ kind: 'loading' });
  const [code, setCode] = useState('');
  const [password, setPassword] = useState('');
  const [fieldErrors, setFieldErrors] = useState<FieldErrors>({});
  const [failure, setFailure] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [reload, setReload] = useState(0);

  useEffect(() => {
    const controller = new AbortController();
    setStep({ kind: 'loading' });
    ownTwoFactor.state(controller.signal).then(
      ({ enabled }) => setStep({ kind: enabled ? 'on' : 'off' }),
      (e: unknown) => {
        if (!controller.signal.aborted) setStep({ kind: 'failed', message: errorMessage(e) });
      },
    );
    return () => controller.abort();
  }, [reload]);

  const again = useCallback(() => setReload((n) => n + 1), []);

  const go = (next: Step) => {
    setStep(next);
    setCode('');
    setPassword('');
    setFieldErrors({});
    setFailure(null);
  };

  const run = async (action: () => Promise<void>) => {
    setBusy(true);
    setFailure(null);
    try {
      await action();
    } catch (e) {
      // Changed meanwhile (another tab, another device): show where it stands now.
      if (e instanceof ApiError && e.code === 'TOTP_ALREADY_ENABLED') setStep({ kind: 'on' });
      if (e instanceof ApiError && e.code === 'TOTP_NOT_ENABLED') setStep({ kind: 'off' });
      const field = fieldOf(e);
      if (field) setFieldErrors({ [field]: errorMessage(e) });
      else setFailure(errorMessage(e));
    } finally {
      setBusy(false);
    }
  };

  const startSetup = () =>
    void run(async () => {
      const setup = await ownTwoFactor.setup();
      go({ kind: 'setup', secret: setup.secret, url: setup.otpauthUrl });
    });

  const confirm = (event: FormEvent) => {
    event.preventDefault();
    if (busy) return;
    const found: FieldErrors = {};
    if (step.kind === 'disabling' && !password) found.password = t('admin.account.twoFactor.passwordRequired');
    if (!isTotpCode(code)) found.code = t('admin.account.twoFactor.codeInvalid');
    setFieldErrors(found);
    if (found.code || found.password) return;
    void run(async () => {
      if (step.kind === 'setup') {
        await ownTwoFactor.enable(step.secret, code.trim());
        go({ kind: 'on' });
        toast.success(t('admin.account.twoFactor.enabled'));
      } else {
        await ownTwoFactor.disable(code.trim(), password);
        go({ kind: 'off' });
        toast.success(t('admin.account.twoFactor.disabled'));
      }
    });
  };

  const on = step.kind === 'on' || step.kind === 'disabling';
  const codeForm = (submit: string, cancelTo: Step, withPassword: boolean) => (
    <form className="admin-account-form" noValidate onSubmit={confirm}>
      {withPassword && (
        <Field
          label={t('admin.account.twoFactor.password')}
          name="password"
          type="password"
          autoComplete="current-password"
          value={password}
          error={fieldErrors.password}
          onChange={(e) => {
            setPassword(e.target.value);
            setFieldErrors({ ...fieldErrors, password: undefined });
          }}
        />
      )}
      <TotpCodeField
        label={t('admin.account.twoFactor.code')}
        name="code"
        value={code}
        error={fieldErrors.code}
        onChange={(e) => {
          setCode(e.target.value);
          setFieldErrors({ ...fieldErrors, code: undefined });
        }}
      />
      <FormError text={failure} />
      <div className="admin-action-buttons">
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
    <section className="admin-card" aria-labelledby="admin-twofa-title">
      <div className="admin-card-head">
        <h2 id="admin-twofa-title" className="admin-card-title">
          {t('admin.account.twoFactor.title')}
        </h2>
        {(on || step.kind === 'off' || step.kind === 'setup') && (
          <span className={on ? 'admin-status admin-status-completed' : 'admin-status'} data-testid="admin-twofa-state">
            {t(on ? 'admin.account.twoFactor.on' : 'admin.account.twoFactor.off')}
          </span>
        )}
      </div>
      <p className="admin-note small">{t('admin.account.twoFactor.about')}</p>
      {step.kind === 'loading' && <Spinner />}
      {step.kind === 'failed' && <ErrorState text={step.message} onRetry={again} />}
      {step.kind === 'off' && (
        <div className="admin-account-form">
          <FormError text={failure} />
          <button type="button" className="btn btn-primary" disabled={busy} onClick={startSetup}>
            {t('admin.account.twoFactor.enable')}
          </button>
        </div>
      )}
      {step.kind === 'setup' && (
        <div className="twofa-setup">
          <p>{t('admin.account.twoFactor.scan')}</p>
          <TotpSecret url={step.url} secret={step.secret} qrLabel={t('admin.account.twoFactor.qr')} secretLabel={t('admin.account.twoFactor.secret')} />
          {codeForm(t('admin.account.twoFactor.confirmEnable'), { kind: 'off' }, false)}
        </div>
      )}
      {step.kind === 'on' && (
        <div className="admin-account-form">
          <FormError text={failure} />
          <button type="button" className="btn btn-secondary" onClick={() => go({ kind: 'disabling' })}>
            {t('admin.account.twoFactor.disable')}
          </button>
        </div>
      )}
      {step.kind === 'disabling' && (
        <>
          <p>{t('admin.account.twoFactor.disableExplain')}</p>
          {codeForm(t('admin.account.twoFactor.confirmDisable'), { kind: 'on' }, true)}
        </>
      )}
    </section>
  );
}
