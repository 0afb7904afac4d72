/**
 * Two-factor authentication (decisions §6, RFC 6238): turning it on shows a fresh secret as a
 * QR code of its otpauth URL (and as text, to type in), and takes effect only when a code made
 * with it is confirmed; turning it off needs a current code.
 */
import { type FormEvent, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';

import { FormError } from '@/components/form-error';
import { Spinner } from '@/components/states';
import { TotpCodeField } from '@/components/field';
import { TotpSecret } from '@/components/totp-secret';
import { errorMessage } from '@/lib/api-client';
import { isTotpCode } from '@/lib/validation';
import { toast } from '@/stores/toast';

import { securityApi } from '../api';

type Step = { kind: 'loading' } | { kind: 'off' } | { kind: 'setup'; secret: string; url: string } | { kind: 'on' } | { kind: 'disabling' };

export function TwoFactor() {
  const { t } = useTranslation();
  const [step, setStep] = useState<Step>({ kind: 'loading' });
  const [code, setCode] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    securityApi.twoFactor().then(
      ({ enabled }) => setStep({ kind: enabled ? 'on' : 'off' }),
      (e: unknown) => {
        setError(errorMessage(e));
        setStep({ kind: 'off' });
      },
    );
  }, []);

  const run = async (action: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    try {
      await action();
    } catch (e) {
      setError(errorMessage(e));
    } finally {
      setBusy(false);
    }
  };

  const confirm = (event: FormEvent) => {
    event.preventDefault();
    if (!isTotpCode(code)) {
      setError(t('security.twoFactor.codeInvalid'));
      return;
    }
    void run(async () => {
      if (step.kind === 'setup') {
        await securityApi.enable(step.secret, code.trim());
        setStep({ kind: 'on' });
        toast.success(t('security.twoFactor.enabled'));
      } else {
        await securityApi.disable(code.trim());
        setStep({ kind: 'off' });
        toast.success(t('security.twoFactor.disabled'));
      }
      setCode('');
    });
  };

  const codeForm = (submit: string) => (
    <form className="form" noValidate onSubmit={confirm}>
      <TotpCodeField label={t('security.twoFactor.code')} name="code" value={code} onChange={(e) => setCode(e.target.value)} />
      <FormError text={error} />
      <div className="dialog-actions">
        <button
          type="button"
          className="btn btn-secondary"
          onClick={() => {
            setStep({ kind: step.kind === 'setup' ? 'off' : 'on' });
            setCode('');
            setError(null);
          }}
        >
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
          <FormError text={error} />
          <button type="button" className="btn btn-primary" disabled={busy} onClick={() => void run(async () => {
            const setup = await securityApi.setup();
            setStep({ kind: 'setup', secret: setup.secret, url: setup.otpauthUrl });
          })}>
            {t('security.twoFactor.enable')}
          </button>
        </>
      )}
      {step.kind === 'setup' && (
        <div className="twofa-setup">
          <p>{t('security.twoFactor.scan')}</p>
          <TotpSecret url={step.url} secret={step.secret} qrLabel={t('security.twoFactor.qr')} secretLabel={t('security.twoFactor.secret')} />
          {codeForm(t('security.twoFactor.confirmEnable'))}
        </div>
      )}
      {step.kind === 'on' && (
        <button type="button" className="btn btn-secondary" onClick={() => setStep({ kind: 'disabling' })}>
          {t('security.twoFactor.disable')}
        </button>
      )}
      {step.kind === 'disabling' && codeForm(t('security.twoFactor.confirmDisable'))}
    </section>
  );
}
