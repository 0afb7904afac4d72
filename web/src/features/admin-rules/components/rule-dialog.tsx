/**
 * Adds or edits the rule of one duration, with a preview of the change: each term before and
 * after, and what a winning 100 USDT stake is credited. Terms apply to new contracts only.
 */
import { type FormEvent, useState } from 'react';
import { useTranslation } from 'react-i18next';

import { Dialog } from '@/components/dialog';
import { Field } from '@/components/field';
import { FormError } from '@/components/form-error';
import { formatDuration, formatMoney, formatRate } from '@/lib/format';
import { useSubmit } from '@/lib/use-submit';

import { type Rule, saveRule } from '../api';
import { type RuleErrors, type RuleForm, checkRule, example, toForm, toRule } from '../form';

const EMPTY: RuleForm = { duration: '', payoutRate: '0.85', minAmount: '1', maxAmount: '5000', feeRate: '0', enabled: true };

export function RuleDialog({ rule, onClose, onSaved }: { rule: Rule | null; onClose(): void; onSaved(rules: Rule[]): void }) {
  const { t, i18n } = useTranslation();
  const lang = i18n.language;
  const [form, setForm] = useState<RuleForm>(rule ? toForm(rule) : EMPTY);
  const [errors, setErrors] = useState<RuleErrors>({});
  const request = useSubmit({ holdOnSuccess: true });
  const valid = Object.keys(checkRule(form)).length === 0;
  const next = valid ? toRule(form) : null;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const found = checkRule(form);
    setErrors(found);
    if (Object.keys(found).length > 0) return;
    await request.run(async () => onSaved(await saveRule(toRule(form))));
  };

  const field = (key: 'duration' | 'payoutRate' | 'minAmount' | 'maxAmount' | 'feeRate', hint?: string) => (
    <Field
      label={t(`admin.rules.fields.${key}`)}
      name={key}
      inputMode={key === 'duration' ? 'numeric' : 'decimal'}
      dir="ltr"
      value={form[key]}
      readOnly={key === 'duration' && rule !== null}
      hint={hint}
      error={errors[key] && t(errors[key])}
      onChange={(e) => {
        setForm({ ...form, [key]: e.target.value });
        setErrors({ ...errors, [key]: undefined });
      }}
    />
  );
  const rows: Array<[string, string, string]> = next
    ? [
        [t('admin.rules.fields.payoutRate'), rule ? formatRate(rule.payoutRate, lang) : '—', formatRate(next.payoutRate, lang)],
        [t('admin.rules.fields.minAmount'), rule ? formatMoney(rule.minAmount, lang) : '—', formatMoney(next.minAmount, lang)],
        [t('admin.rules.fields.maxAmount'), rule ? formatMoney(rule.maxAmount, lang) : '—', formatMoney(next.maxAmount, lang)],
        [t('admin.rules.fields.feeRate'), rule ? formatRate(rule.feeRate, lang) : '—', formatRate(next.feeRate, lang)],
        [t('admin.rules.fields.enabled'), rule ? t(rule.enabled ? 'admin.rules.on' : 'admin.rules.off') : '—', t(next.enabled ? 'admin.rules.on' : 'admin.rules.off')],
        [t('admin.rules.example'), rule ? formatMoney(example(rule).credit, lang) : '—', formatMoney(example(next).credit, lang)],
      ]
    : [];
  const duration = Number(form.duration);
  return (
    <Dialog open title={rule ? t('admin.rules.editTitle', { duration: formatDuration(rule.duration, t) }) : t('admin.rules.addTitle')} onClose={onClose} className="admin-user-dialog">
      <form onSubmit={(e) => void submit(e)} noValidate className="admin-user-form">
        {field('duration', duration > 0 && !errors.duration ? formatDuration(duration, t) : t('admin.rules.durationHint'))}
        <div className="admin-grid admin-grid-2">
          {field('payoutRate', t('admin.rules.rateHint'))}
          {field('feeRate', t('admin.rules.rateHint'))}
          {field('minAmount')}
          {field('maxAmount')}
        </div>
        <label className="admin-check">
          <input type="checkbox" checked={form.enabled} onChange={(e) => setForm({ ...form, enabled: e.target.checked })} />
          {t('admin.rules.fields.enabled')}
        </label>
        {next && (
          <table className="admin-preview">
            <caption>{t('admin.rules.preview')}</caption>
            <thead>
              <tr>
                <th scope="col" />
                <th scope="col">{t('admin.rules.before')}</th>
                <th scope="col">{t('admin.rules.after')}</th>
              </tr>
            </thead>
            <tbody>
              {rows.map(([label, before, after]) => (
                <tr key={label} className={before !== after ? 'changed' : undefined}>
                  <th scope="row">{label}</th>
                  <td className="num">{before}</td>
                  <td className="num">{after}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        <p className="muted">{t('admin.rules.newOnly')}</p>
        <FormError text={request.error} />
        <div className="admin-action-buttons">
          <button type="button" className="btn btn-secondary" onClick={onClose}>
            {t('app.cancel')}
          </button>
          <button type="submit" className="btn btn-primary" disabled={request.busy}>
            {t('admin.rules.save')}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
