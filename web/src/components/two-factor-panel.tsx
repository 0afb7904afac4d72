/**
 * Two-factor sign-in (RFC 6238), for the trader's security page and the admin's account page
 * alike: turning it on shows a fresh secret as a QR code of its otpauth URL (and as text, to
 * type in), and takes effect only when a code made with it is confirmed; turning it off needs
 * the password and a current code. A refusal shows by the field it is about (a wrong password,
 * a wrong code), else for the whole form (too many wrong codes: the server's message says how
 * long to wait).
 *
 * Each side passes its calls and where its texts are in the catalogue; `variant` is its look,
 * and the few ways the two have always behaved apart (see {@link VARIANTS}).
 */
import { type FormEvent, type ReactNode, useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';

import { errorMessage } from '@/lib/api-client';
import { useSubmit } from '@/lib/use-submit';
import { isTotpCode } from '@/lib/validation';
import { toast } from '@/stores/toast';
import type { Schemas } from '@/types/api';

import { Field, TotpCodeField } from './field';
import { FormError } from './form-error';
import { ErrorState, Spinner } from './states';
import { TotpSecret } from './totp-secret';

/** One side's two-factor calls. */
export interface TwoFactorCalls {
  state(signal?: AbortSignal): Promise<Schemas['TwoFactorState']>;
  setup(): Promise<Schemas['TwoFactorSetup']>;
  enable(secret: string, code: string): Promise<unknown>;
  /** Turning it off needs the password as well as a current code. */
  disable(code: string, password: string): Promise<unknown>;
}

type Step =
  | { kind: 'loading' }
  | { kind: 'failed'; message: string }
  | { kind: 'off' }
  | { kind: 'setup'; secret: string; url: string }
  | { kind: 'on' }
  | { kind: 'disabling' };

/** The server's refusals that are about a field of the code form. */
const SERVER_FIELDS = { codes: { WRONG_PASSWORD: 'password', INVALID_TOTP: 'code' }, fields: ['password', 'code'] } as const;

interface Variant {
  section: string;
  head: string;
  title: string;
  titleId: string;
  stateTestId: string;
  stateClass(on: boolean): string;
  about: string;
  form: string;
  actions: string;
  /** What holds the Enable and Disable buttons (and the form's message), if anything. */
  stepBox: string | null;
  /** A failed first read shows with a retry; else as the form's message, the panel off. */
  retryLoad: boolean;
  /** The form's message stays until the next call: a check or typing leaves it. */
  failureStays: boolean;
  /** A refusal saying it is on (or off) already, changed elsewhere, shows where it stands now. */
  followsServer: boolean;
}

const VARIANTS: Record<'trader' | 'admin', Variant> = {
  trader: {
    section: 'card',
    head: 'section-head',
    title: 'section-title',
    titleId: 'twofa-title',
    stateTestId: 'twofa-state',
    stateClass: (on) => `pill ${on ? 'pill-up' : ''}`,
    about: 'muted small',
    form: 'form',
    actions: 'dialog-actions',
    stepBox: null,
    retryLoad: false,
    failureStays: false,
    followsServer: false,
  },
  admin: {
    section: 'admin-card',
    head: 'admin-card-head',
    title: 'admin-card-title',
    titleId: 'admin-twofa-title',
    stateTestId: 'admin-twofa-state',
    stateClass: (on) => (on ? 'admin-status admin-status-completed' : 'admin-status'),
    about: 'admin-note small',
    form: 'admin-account-form',
    actions: 'admin-action-buttons',
    stepBox: 'admin-account-form',
    retryLoad: true,
    failureStays: true,
    followsServer: true,
  },
};

interface TwoFactorPanelProps {
  calls: TwoFactorCalls;
  /** Where the panel's texts are in the catalogue (`security.twoFactor`, `admin.account.twoFactor`). */
  texts: string;
  variant: 'trader' | 'admin';
  /**
   * False while turning it off cannot be asked for: a wallet user without a password is told
   * to set one first (`<texts>.setPasswordFirst`).
   */
  canDisable?: boolean;
}

export function TwoFactorPanel({ calls, texts, variant, canDisable = true }: TwoFactorPanelProps) {
  const { t } = useTranslation();
  const look = VARIANTS[variant];
  const text = (key: string) => t(`${texts}.${key}`);
  const [step, setStep] = useState<Step>({ kind: 'loading' });
  const [code, setCode] = useState('');
  const [password, setPassword] = useState('');
  const [reload, setReload] = useState(0);
  const request = useSubmit<'code' | 'password'>({
    ...SERVER_FIELDS,
    onError: (_, { code: refusal }) => {
      if (!look.followsServer) return;
      // Changed meanwhile (another tab, another device): show where it stands now.
      if (refusal === 'TOTP_ALREADY_ENABLED') setStep({ kind: 'on' });
      if (refusal === 'TOTP_NOT_ENABLED') setStep({ kind: 'off' });
    },
  });
  const { show } = request;

  useEffect(() => {
    const controller = new AbortController();
    setStep({ kind: 'loading' });
    calls.state(controller.signal).then(
      ({ enabled }) => setStep({ kind: enabled ? 'on' : 'off' }),
      (e: unknown) => {
        if (controller.signal.aborted) return;
        if (look.retryLoad) {
          setStep({ kind: 'failed', message: errorMessage(e) });
        } else {
          show({}, errorMessage(e));
          setStep({ kind: 'off' });
        }
      },
    );
    return () => controller.abort();
  }, [calls, look, show, reload]);

  const again = useCallback(() => setReload((n) => n + 1), []);

  const go = (next: Step) => {
    setStep(next);
    setCode('');
    setPassword('');
    request.clear();
  };

  const startSetup = () =>
    void request.run(async () => {
      const setup = await calls.setup();
      go({ kind: 'setup', secret: setup.secret, url: setup.otpauthUrl });
    });

  const confirm = (event: FormEvent) => {
    event.preventDefault();
    if (request.busy) return;
    const found: Partial<Record<'code' | 'password', string>> = {};
    if (!isTotpCode(code)) found.code = text('codeInvalid');
    if (step.kind === 'disabling' && !password) found.password = text('passwordRequired');
    request.show(found, look.failureStays ? request.error : null);
    if (found.code || found.password) return;
    void request.run(async () => {
      if (step.kind === 'setup') {
        await calls.enable(step.secret, code.trim());
        go({ kind: 'on' });
        toast.success(text('enabled'));
      } else {
        await calls.disable(code.trim(), password);
        go({ kind: 'off' });
        toast.success(text('disabled'));
      }
    });
  };

  const edited = (field: 'code' | 'password') => {
    request.setFieldError(field);
    if (!look.failureStays) request.setError(null);
  };

  const codeForm = (submit: string, cancelTo: Step, withPassword: boolean) => (
    <form className={look.form} noValidate onSubmit={confirm}>
      {withPassword && (
        <Field
          label={text('password')}
          name="password"
          type="password"
          autoComplete="current-password"
          value={password}
          error={request.fieldErrors.password}
          onChange={(e) => {
            setPassword(e.target.value);
            edited('password');
          }}
        />
      )}
      <TotpCodeField
        label={text('code')}
        name="code"
        value={code}
        error={request.fieldErrors.code}
        onChange={(e) => {
          setCode(e.target.value);
          edited('code');
        }}
      />
      <FormError text={request.error} />
      <div className={look.actions}>
        <button type="button" className="btn btn-secondary" onClick={() => go(cancelTo)}>
          {t('app.cancel')}
        </button>
        <button type="submit" className="btn btn-primary" disabled={request.busy}>
          {submit}
        </button>
      </div>
    </form>
  );

  const stepBox = (children: ReactNode) => (look.stepBox ? <div className={look.stepBox}>{children}</div> : children);
  const on = step.kind === 'on' || step.kind === 'disabling';
  return (
    <section className={look.section} aria-labelledby={look.titleId}>
      <div className={look.head}>
        <h2 id={look.titleId} className={look.title}>
          {text('title')}
        </h2>
        {step.kind !== 'loading' && step.kind !== 'failed' && (
          <span className={look.stateClass(on)} data-testid={look.stateTestId}>
            {text(on ? 'on' : 'off')}
          </span>
        )}
      </div>
      <p className={look.about}>{text('about')}</p>
      {step.kind === 'loading' && <Spinner />}
      {step.kind === 'failed' && <ErrorState text={step.message} onRetry={again} />}
      {step.kind === 'off' &&
        stepBox(
          <>
            <FormError text={request.error} />
            <button type="button" className="btn btn-primary" disabled={request.busy} onClick={startSetup}>
              {text('enable')}
            </button>
          </>,
        )}
      {step.kind === 'setup' && (
        <div className="twofa-setup">
          <p>{text('scan')}</p>
          <TotpSecret url={step.url} secret={step.secret} qrLabel={text('qr')} secretLabel={text('secret')} />
          {codeForm(text('confirmEnable'), { kind: 'off' }, false)}
        </div>
      )}
      {step.kind === 'on' &&
        stepBox(
          <>
            <FormError text={request.error} />
            <button type="button" className="btn btn-secondary" onClick={() => go({ kind: 'disabling' })}>
              {text('disable')}
            </button>
          </>,
        )}
      {step.kind === 'disabling' &&
        (canDisable ? (
          <>
            <p>{text('disableExplain')}</p>
            {codeForm(text('confirmDisable'), { kind: 'on' }, true)}
          </>
        ) : (
          // Without a password (a wallet sign-in) one is set first (the password form of the page).
          <div className={look.form}>
            <p>{text('setPasswordFirst')}</p>
            <div className={look.actions}>
              <button type="button" className="btn btn-secondary" onClick={() => go({ kind: 'on' })}>
                {t('app.cancel')}
              </button>
            </div>
          </div>
        ))}
    </section>
  );
}
