/**
 * A tournament's rules, new or a draft's: every field checked before sending, the server's
 * refusals placed on the field they name. Times are typed in the browser's time zone.
 */
import { type FormEvent, useState } from 'react';
import { useTranslation } from 'react-i18next';

import { Dialog } from '@/components/dialog';
import { Field } from '@/components/field';
import { FormError } from '@/components/form-error';
import { useSubmit } from '@/lib/use-submit';

import { type AdminTournament, type FormField, TITLE_MAX, type TournamentDetail, type TournamentForm, blankForm, checkForm, createTournament, formOf, updateTournament } from '../api';

/** The server's field names that are the form's (times and shares are named apart). */
const SERVER_FIELDS: Readonly<Record<string, FormField>> = {
  title: 'title',
  symbols: 'symbols',
  durations: 'durations',
  startAt: 'start',
  endAt: 'end',
  endMs: 'end',
  entryFee: 'entryFee',
  startBalance: 'startBalance',
  rebuysMax: 'rebuysMax',
  rebuyFee: 'rebuyFee',
  rebuyBelow: 'rebuyBelow',
  poolShareBp: 'poolShare',
  poolShare: 'poolShare',
  poolMin: 'poolMin',
  prizesBp: 'prizes',
  prizes: 'prizes',
};

const FIELDS: ReadonlyArray<{ name: FormField; type?: string; inputMode?: 'decimal' | 'numeric' }> = [
  { name: 'title' },
  { name: 'symbols' },
  { name: 'durations', inputMode: 'numeric' },
  { name: 'start', type: 'datetime-local' },
  { name: 'end', type: 'datetime-local' },
  { name: 'entryFee', inputMode: 'decimal' },
  { name: 'startBalance', inputMode: 'decimal' },
  { name: 'rebuysMax', inputMode: 'numeric' },
  { name: 'rebuyFee', inputMode: 'decimal' },
  { name: 'rebuyBelow', inputMode: 'decimal' },
  { name: 'poolShare', inputMode: 'decimal' },
  { name: 'poolMin', inputMode: 'decimal' },
  { name: 'prizes', inputMode: 'decimal' },
];

export function TournamentDialog({ draft, onClose, onSaved }: { draft: AdminTournament | null; onClose(): void; onSaved(saved: TournamentDetail): void }) {
  const { t } = useTranslation();
  const [form, setForm] = useState<TournamentForm>(() => (draft ? formOf(draft.rules) : blankForm(Date.now())));
  const request = useSubmit<FormField>({ fields: SERVER_FIELDS, holdOnSuccess: true });
  const change = (name: FormField, value: string) => {
    setForm((f) => ({ ...f, [name]: value }));
    request.setFieldError(name);
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const { body, errors } = checkForm(form);
    if (!body) {
      request.show(Object.fromEntries(Object.entries(errors).map(([k, key]) => [k, t(key, { max: TITLE_MAX })])));
      // The first field to correct may be out of view in a long form.
      const first = FIELDS.find((f) => errors[f.name]);
      if (first) (event.currentTarget as HTMLFormElement).querySelector<HTMLInputElement>(`[name="${first.name}"]`)?.focus();
      return;
    }
    void request.run(async () => onSaved(await (draft ? updateTournament(draft.id, body) : createTournament(body))));
  };
  return (
    <Dialog open title={draft ? t('admin.tournaments.editTitle', { title: draft.rules.title }) : t('admin.tournaments.new')} onClose={onClose} className="dialog-wide">
      <form onSubmit={submit} noValidate aria-label={draft ? t('admin.tournaments.editTitle', { title: draft.rules.title }) : t('admin.tournaments.new')}>
        <div className="admin-grid admin-grid-2">
          {FIELDS.map(({ name, type, inputMode }) => (
            <Field
              key={name}
              name={name}
              type={type ?? 'text'}
              inputMode={inputMode}
              label={t(`admin.tournaments.fields.${name}`)}
              hint={t(`admin.tournaments.hints.${name}`)}
              maxLength={name === 'title' ? TITLE_MAX : undefined}
              step={type === 'datetime-local' ? 1 : undefined}
              value={form[name]}
              error={request.fieldErrors[name]}
              onChange={(e) => change(name, e.target.value)}
            />
          ))}
        </div>
        <FormError text={request.error} />
        <div className="admin-action-buttons">
          <button type="button" className="btn btn-secondary" onClick={onClose}>
            {t('app.cancel')}
          </button>
          <button type="submit" className="btn btn-primary" disabled={request.busy}>
            {t('admin.tournaments.saveDraft')}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
