/**
 * Changing one's own password (spec §5), for the trader's security page and the admin's account
 * page alike: the current password (none for a trader who has none yet: a wallet sign-in sets a
 * first one), the new one and its confirmation, the side's rules checked before the call, and
 * the notice that goes with a change. The server then ends every other session; this one stays.
 *
 * Each side passes its call, its rules and where its texts are in the catalogue; `variant` is
 * its look, and the ways the two have always shown their messages (see {@link VARIANTS}).
 */
import { type ChangeEvent, type FormEvent, type Ref, useState } from 'react';
import { useTranslation } from 'react-i18next';

import type { FieldMap } from '@/lib/field-errors';
import { useSubmit } from '@/lib/use-submit';
import { toast } from '@/stores/toast';
import type { Schemas } from '@/types/api';

import { Field } from './field';
import { FormError } from './form-error';

export interface PasswordForm {
  current: string;
  next: string;
  confirm: string;
}

/** What the rules found: a catalogue key per field, or for the whole form. */
export type PasswordChecks = Partial<Record<keyof PasswordForm | 'form', string>>;

/** `oldPassword` is empty when there is none yet. */
export type PasswordChangeBody = Schemas['ChangePasswordBody'];

const EMPTY: PasswordForm = { current: '', next: '', confirm: '' };

interface Variant {
  /**
   * The rules are checked again as one types once a check has failed, and typing clears the
   * server's refusal; else a check's message shows, like a refusal, until the next submit.
   */
  recheck: boolean;
  /** Where the server's refusals about one field go (else all are for the whole form). */
  serverFields: FieldMap<keyof PasswordForm>;
  /** The inputs carry the request's names. */
  names: boolean;
}

const VARIANTS: Record<'trader' | 'admin', Variant> = {
  trader: { recheck: false, serverFields: {}, names: false },
  admin: {
    recheck: true,
    serverFields: { codes: { WRONG_PASSWORD: 'current' }, fields: { newPassword: 'next', confirmPassword: 'confirm' } },
    names: true,
  },
};

interface PasswordChangeProps {
  change(body: PasswordChangeBody): Promise<unknown>;
  /** The side's rules, checked before the call. */
  check(form: PasswordForm): PasswordChecks;
  /** Where the form's texts are in the catalogue (`security.password`, `admin.account.password`). */
  texts: string;
  variant: 'trader' | 'admin';
  /** False for a trader without a password yet: no current one asked, and the "set" texts. */
  hasPassword?: boolean;
  /** After a change (the texts' `changed` toast is shown). */
  onChanged?(): void;
  /** The admin's section, which `#password` scrolls to and focuses in. */
  ref?: Ref<HTMLElement>;
}

export function PasswordChange({ change, check, texts, variant, hasPassword = true, onChanged, ref }: PasswordChangeProps) {
  const { t } = useTranslation();
  const look = VARIANTS[variant];
  const text = (key: string) => t(`${texts}.${key}`);
  const [form, setForm] = useState<PasswordForm>(EMPTY);
  const [checks, setChecks] = useState<PasswordChecks>({});
  const [checking, setChecking] = useState(false);
  const request = useSubmit<keyof PasswordForm>(look.serverFields);

  const set = (key: keyof PasswordForm) => (event: ChangeEvent<HTMLInputElement>) => {
    const next = { ...form, [key]: event.target.value };
    setForm(next);
    if (!look.recheck) return;
    if (checking) setChecks(check(next));
    request.clear();
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (request.busy) return;
    const found = check(form);
    if (look.recheck) {
      setChecks(found);
      setChecking(true);
      request.clear();
    } else {
      request.show({}, found.form ? t(found.form) : null);
    }
    if (Object.values(found).some(Boolean)) return;
    await request.run(async () => {
      await change({ oldPassword: hasPassword ? form.current : '', newPassword: form.next, confirmPassword: form.confirm });
      setForm(EMPTY);
      setChecking(false);
      toast.success(text('changed'));
      onChanged?.();
    });
  };

  const message = (key: keyof PasswordChecks) => {
    const found = checks[key];
    return (key === 'form' ? request.error : request.fieldErrors[key]) ?? (found ? t(found) : undefined);
  };
  const title = text(hasPassword ? 'title' : 'setTitle');
  const fields = (
    <>
      {hasPassword && (
        <Field
          label={text('current')}
          name={look.names ? 'oldPassword' : undefined}
          type="password"
          autoComplete="current-password"
          value={form.current}
          onChange={set('current')}
          error={message('current')}
        />
      )}
      <Field label={text('new')} name={look.names ? 'newPassword' : undefined} type="password" autoComplete="new-password" value={form.next} onChange={set('next')} error={message('next')} />
      <Field label={text('confirm')} name={look.names ? 'confirmPassword' : undefined} type="password" autoComplete="new-password" value={form.confirm} onChange={set('confirm')} error={message('confirm')} />
    </>
  );
  const button = (
    <button type="submit" className="btn btn-primary" disabled={request.busy}>
      {text(hasPassword ? 'submit' : 'setSubmit')}
    </button>
  );

  if (variant === 'trader') {
    return (
      <form className="card form" noValidate onSubmit={(e) => void submit(e)} aria-labelledby="password-title">
        <h2 id="password-title" className="section-title">
          {title}
        </h2>
        {fields}
        <p className="muted small">{text('notice')}</p>
        <FormError text={message('form')} />
        {button}
      </form>
    );
  }
  return (
    <section id="password" ref={ref} className="admin-card" aria-labelledby="admin-password-title" tabIndex={-1}>
      <h2 id="admin-password-title" className="admin-card-title">
        {title}
      </h2>
      <form className="admin-account-form" noValidate onSubmit={(e) => void submit(e)}>
        {fields}
        <FormError text={message('form')} />
        <p className="admin-note small">{text('notice')}</p>
        {button}
      </form>
    </section>
  );
}
