/**
 * Responsible trading (decisions §7b, as regulated peers offer it): a daily loss limit, a daily
 * turnover limit, a limit of open contracts, a session-time reminder and self-exclusion until
 * a date. The engine enforces them on every order; a tighter limit applies at once, a looser
 * one 24 hours after it was asked for, and a self-exclusion cannot be shortened by anyone.
 */
import { type FormEvent, useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';

import { Dialog } from '@/components/dialog';
import { Field } from '@/components/field';
import { FormError } from '@/components/form-error';
import { ErrorState, SkeletonRows } from '@/components/states';
import { errorMessage } from '@/lib/api-client';
import { formatDateTime, formatMoney } from '@/lib/format';
import { useSubmit } from '@/lib/use-submit';
import { toast } from '@/stores/toast';

import { type LimitsAnswer, limitsApi } from '../api';
import { type FormErrors, type LimitsForm, formOf, parseLimits } from '../form';

export function ResponsibleTrading() {
  const { t, i18n } = useTranslation();
  const [data, setData] = useState<LimitsAnswer | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [form, setForm] = useState<LimitsForm | null>(null);
  const [errors, setErrors] = useState<FormErrors>({});
  const [confirming, setConfirming] = useState<ReturnType<typeof parseLimits> | null>(null);
  const request = useSubmit();

  const load = useCallback(async () => {
    setLoadError(null);
    try {
      const answer = await limitsApi.get();
      setData(answer);
      setForm(formOf(answer.pending ?? answer.current));
    } catch (e) {
      setLoadError(errorMessage(e));
    }
  }, []);
  useEffect(() => void load(), [load]);

  if (loadError) return <ErrorState text={loadError} onRetry={() => void load()} />;
  if (!data || !form) return <SkeletonRows rows={5} columns={2} />;
  const lang = i18n.language;
  const excluded = data.current.excludedUntil && data.current.excludedUntil > Date.now() ? data.current.excludedUntil : null;
  const set = (key: keyof LimitsForm) => (e: { target: { value: string } }) => setForm({ ...form, [key]: e.target.value });

  const review = (event: FormEvent) => {
    event.preventDefault();
    const parsed = parseLimits(form, Date.now());
    if ('errors' in parsed) {
      setErrors(parsed.errors);
      return;
    }
    setErrors({});
    // A self-exclusion cannot be undone: it is confirmed first.
    if (parsed.limits.excludedUntil) setConfirming(parsed);
    else void save(parsed);
  };

  const save = async (parsed: ReturnType<typeof parseLimits>) => {
    if (!('limits' in parsed) || request.busy) return;
    await request.run(async () => {
      const answer = await limitsApi.set({ ...parsed.limits, excludedUntil: parsed.limits.excludedUntil ?? data.current.excludedUntil });
      setData(answer);
      setForm(formOf(answer.pending ?? answer.current));
      setConfirming(null);
      toast.success(t(answer.pending ? 'responsible.savedPending' : 'responsible.saved'));
    });
  };

  const limit = (v: string | number | null, money = false) => (v === null ? t('responsible.none') : money ? `${formatMoney(String(v), lang)} USDT` : String(v));
  return (
    <section className="responsible" aria-labelledby="responsible-title">
      <h1 id="responsible-title" className="page-title">
        {t('responsible.title')}
      </h1>
      <p className="muted small">{t('responsible.intro')}</p>
      {excluded && (
        <div className="notice notice-warning" role="status" data-testid="excluded-until">
          {t('responsible.excludedUntil', { time: formatDateTime(excluded, lang) })}
        </div>
      )}
      <dl className="card detail-pairs responsible-now" aria-label={t('responsible.inForce')}>
        <div>
          <dt>{t('responsible.dailyLoss')}</dt>
          <dd>
            {limit(data.current.dailyLoss, true)} · {t('responsible.today', { amount: formatMoney(data.todayLoss, lang) })}
          </dd>
        </div>
        <div>
          <dt>{t('responsible.dailyTurnover')}</dt>
          <dd>
            {limit(data.current.dailyTurnover, true)} · {t('responsible.today', { amount: formatMoney(data.todayTurnover, lang) })}
          </dd>
        </div>
        <div>
          <dt>{t('responsible.openContracts')}</dt>
          <dd>{limit(data.current.openContracts)}</dd>
        </div>
        <div>
          <dt>{t('responsible.sessionReminder')}</dt>
          <dd>{data.current.sessionReminderMinutes ? t('responsible.minutes', { count: data.current.sessionReminderMinutes }) : t('responsible.none')}</dd>
        </div>
      </dl>
      {data.pending && data.pendingFrom && (
        <p className="notice form-note" role="status">
          {t('responsible.pending', { time: formatDateTime(data.pendingFrom, lang) })}
        </p>
      )}
      <form className="card form" noValidate onSubmit={review}>
        <h2 className="section-title">{t('responsible.change')}</h2>
        <Field label={t('responsible.dailyLoss')} inputMode="decimal" value={form.dailyLoss} onChange={set('dailyLoss')} error={errors.dailyLoss && t(errors.dailyLoss)} hint={t('responsible.emptyNoLimit')} after={<span className="field-unit">USDT</span>} />
        <Field label={t('responsible.dailyTurnover')} inputMode="decimal" value={form.dailyTurnover} onChange={set('dailyTurnover')} error={errors.dailyTurnover && t(errors.dailyTurnover)} after={<span className="field-unit">USDT</span>} />
        <Field label={t('responsible.openContracts')} inputMode="numeric" value={form.openContracts} onChange={set('openContracts')} error={errors.openContracts && t(errors.openContracts)} />
        <Field label={t('responsible.sessionReminderField')} inputMode="numeric" value={form.sessionReminderMinutes} onChange={set('sessionReminderMinutes')} error={errors.sessionReminderMinutes && t(errors.sessionReminderMinutes)} />
        <Field label={t('responsible.excludeUntil')} type="date" value={form.excludeUntil} onChange={set('excludeUntil')} error={errors.excludeUntil && t(errors.excludeUntil)} hint={t('responsible.excludeHint')} />
        <p className="muted small">{t('responsible.rules')}</p>
        <FormError text={request.error} />
        <button type="submit" className="btn btn-primary" disabled={request.busy}>
          {t('responsible.save')}
        </button>
      </form>
      <Dialog open={confirming !== null} title={t('responsible.confirmTitle')} onClose={() => setConfirming(null)}>
        <p>{confirming && 'limits' in confirming && confirming.limits.excludedUntil ? t('responsible.confirmText', { time: formatDateTime(confirming.limits.excludedUntil, lang) }) : ''}</p>
        <div className="dialog-actions">
          <button type="button" className="btn btn-secondary" onClick={() => setConfirming(null)}>
            {t('app.cancel')}
          </button>
          <button type="button" className="btn btn-primary" disabled={request.busy} onClick={() => confirming && void save(confirming)}>
            {t('responsible.confirmExclude')}
          </button>
        </div>
      </Dialog>
    </section>
  );
}
