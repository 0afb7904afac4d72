/**
 * Copy a trader, or change how: the account the copies go to, their size as a percent of the
 * trader's stake kept between a minimum and a maximum, and a stop level. Checked before it is
 * sent; a refusal lands on the field it is about (the server names it) or on the form, and
 * nothing is ever sent again by itself.
 */
import { type FormEvent, useId, useState } from 'react';
import { useTranslation } from 'react-i18next';

import { Dialog } from '@/components/dialog';
import { Field } from '@/components/field';
import { FormError } from '@/components/form-error';
import { useSubmit } from '@/lib/use-submit';
import { toast } from '@/stores/toast';
import { useWallet } from '@/stores/wallet';

import type { CopySettingsView } from '../api';
import { type CopyAccount, type CopyField, type CopyForm, formOf, newCopyForm, parseCopyForm } from '../form';

/** The form's amounts, each a USDT field with its hint. */
const AMOUNTS = ['minStake', 'maxStake', 'stopBelow'] as const satisfies readonly CopyField[];
import { useMyCopy } from '../stores/my-copy';

const ACCOUNTS: readonly CopyAccount[] = ['real', 'demo'];

/**
 * The server's refusals: a VALIDATION names the field, which is the form's; the rest
 * (NOT_COPYABLE, FOLLOWERS_FULL, FOLLOWING_FULL, ...) are the form's, in the server's words.
 */
const SERVER = { fields: ['percent', 'minStake', 'maxStake', 'stopBelow'] } as const;

interface FollowDialogProps {
  leader: { uid: number; name: string };
  /** The settings in force when the trader is copied already; null for a new copy. */
  current: CopySettingsView | null;
  onClose(): void;
}

export function FollowDialog({ leader, current, onClose }: FollowDialogProps) {
  const { t } = useTranslation();
  // A new copy goes to the account the header's switch chose, else to demo money.
  const walletAccount = useWallet((s) => (s.chosen ? s.account : 'demo'));
  const [form, setForm] = useState<CopyForm>(() => (current ? formOf(current) : newCopyForm(walletAccount)));
  const request = useSubmit<CopyField>(SERVER);
  const accountId = useId();
  const errors = request.fieldErrors;

  const set = (key: CopyField) => (e: { target: { value: string } }) => {
    setForm({ ...form, [key]: e.target.value });
    request.setFieldError(key);
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (request.busy) return;
    const parsed = parseCopyForm(form);
    if ('errors' in parsed) {
      request.show(Object.fromEntries(Object.entries(parsed.errors).map(([k, key]) => [k, t(key)])));
      return;
    }
    await request.run(
      async () => {
        await useMyCopy.getState().follow(leader.uid, parsed.settings);
        toast.success(current ? t('copyTrading.form.saved') : t('copyTrading.form.started', { name: leader.name }));
        onClose();
      },
      { holdOnSuccess: true },
    );
  };

  return (
    <Dialog open title={t(current ? 'copyTrading.form.editTitle' : 'copyTrading.form.title', { name: leader.name })} onClose={onClose} className="dialog-form">
      <form className="form" noValidate onSubmit={(e) => void submit(e)}>
        <fieldset className="field">
          <legend className="field-label" id={accountId}>
            {t('copyTrading.form.account')}
          </legend>
          <div className="chip-row" role="radiogroup" aria-labelledby={accountId}>
            {ACCOUNTS.map((a) => (
              <label key={a} className={`chip ${form.account === a ? 'chip-active' : ''}`}>
                <input type="radio" name="copy-account" className="sr-only" value={a} checked={form.account === a} onChange={() => setForm({ ...form, account: a })} />
                {t(`header.${a}`)}
              </label>
            ))}
          </div>
          <div className="field-hint">{t('copyTrading.form.accountHint')}</div>
        </fieldset>
        <Field
          label={t('copyTrading.form.percent')}
          inputMode="numeric"
          autoComplete="off"
          value={form.percent}
          onChange={set('percent')}
          error={errors.percent}
          hint={t('copyTrading.form.percentHint')}
          after={<span className="field-unit">%</span>}
        />
        {AMOUNTS.map((key) => (
          <Field
            key={key}
            label={t(`copyTrading.form.${key}`)}
            inputMode="decimal"
            autoComplete="off"
            value={form[key]}
            onChange={set(key)}
            error={errors[key]}
            hint={t(`copyTrading.form.${key}Hint`)}
            after={<span className="field-unit">USDT</span>}
          />
        ))}
        <p className="muted small">{t('copyTrading.form.risk')}</p>
        <FormError text={request.error} />
        <div className="dialog-actions">
          <button type="button" className="btn btn-secondary" onClick={onClose}>
            {t('app.cancel')}
          </button>
          <button type="submit" className="btn btn-primary" disabled={request.busy}>
            {t(current ? 'copyTrading.form.save' : 'copyTrading.form.submit')}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
