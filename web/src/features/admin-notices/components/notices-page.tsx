/**
 * System notices: a broadcast to every user, or to the users whose app is in one language
 * (shown once as a notice in their app and kept in their notification centre), after a
 * confirmation that says who will see it; every notice sent, with its language and whether it
 * was withdrawn; and withdrawing one, after a confirmation (users no longer see it and open
 * apps drop it at once).
 */
import { type FormEvent, useCallback, useEffect, useId, useState } from 'react';
import { useTranslation } from 'react-i18next';

import { Dialog } from '@/components/dialog';
import { Field } from '@/components/field';
import { FormError } from '@/components/form-error';
import { Pager } from '@/components/pager';
import { EmptyState, ErrorState, SkeletonRows } from '@/components/states';
import { type Page, errorMessage } from '@/lib/api-client';
import { formatDateTime } from '@/lib/format';
import { useSubmit } from '@/lib/use-submit';
import { adminCan, useAdminSession } from '@/stores/admin-session';
import { toast } from '@/stores/toast';

import { NOTICES_PAGE_SIZE, NOTICE_BODY_MAX, NOTICE_LANGUAGES, NOTICE_TITLE_MAX, type Notice, broadcast, checkNotice, fetchNotices, withdrawNotice } from '../api';

/** Who a notice is for, as the admin reads it. */
function useAudience(): (lang: string) => string {
  const { t } = useTranslation();
  return (lang) => (lang ? t('admin.notices.onlyLanguage', { language: t(`languages.${lang}`) }) : t('admin.notices.everyLanguage'));
}

/** A notice's title and text as users see them: in its own language and direction. */
function NoticeText({ notice }: { notice: Pick<Notice, 'title' | 'body' | 'lang'> }) {
  const lang = notice.lang || undefined;
  return (
    <>
      <strong className="admin-notice-title" dir="auto" lang={lang}>
        {notice.title}
      </strong>
      <p dir="auto" lang={lang} className="admin-notice-body">
        {notice.body}
      </p>
    </>
  );
}

function BroadcastForm({ onSent }: { onSent(): void }) {
  const { t } = useTranslation();
  const audience = useAudience();
  const bodyId = useId();
  const langId = useId();
  const [title, setTitle] = useState('');
  const [body, setBody] = useState('');
  const [lang, setLang] = useState('');
  const [errors, setErrors] = useState<{ title?: string; body?: string }>({});
  const [confirming, setConfirming] = useState(false);
  const request = useSubmit();

  const check = (event: FormEvent) => {
    event.preventDefault();
    const found = checkNotice(title, body);
    setErrors(found);
    request.setError(null);
    if (!found.title && !found.body) setConfirming(true);
  };
  const send = () =>
    request.run(async () => {
      await broadcast(title.trim(), body.trim(), lang);
      toast.success(t('admin.notices.sent'));
      setTitle('');
      setBody('');
      setLang('');
      setConfirming(false);
      onSent();
    });
  return (
    <form className="admin-card admin-user-form" onSubmit={check} noValidate aria-label={t('admin.notices.new')}>
      <h2 className="admin-card-title">{t('admin.notices.new')}</h2>
      <div className="field">
        <label htmlFor={langId} className="field-label">
          {t('admin.notices.languageLabel')}
        </label>
        <select id={langId} className="input" value={lang} aria-describedby={`${langId}-hint`} onChange={(e) => setLang(e.target.value)}>
          {NOTICE_LANGUAGES.map((code) => (
            <option key={code} value={code} lang={code || undefined}>
              {code ? `${t(`languages.${code}`)} (${code})` : t('admin.notices.everyLanguage')}
            </option>
          ))}
        </select>
        <div id={`${langId}-hint`} className="field-hint">
          {t('admin.notices.languageHint')}
        </div>
      </div>
      <Field label={t('admin.notices.title')} name="title" dir="auto" lang={lang || undefined} maxLength={NOTICE_TITLE_MAX} value={title} error={errors.title && t(errors.title, { max: NOTICE_TITLE_MAX })} onChange={(e) => (setTitle(e.target.value), setErrors({ ...errors, title: undefined }))} />
      <div className="field">
        <label htmlFor={bodyId} className="field-label">
          {t('admin.notices.body')}
        </label>
        <textarea id={bodyId} className="input admin-remark" dir="auto" lang={lang || undefined} rows={5} maxLength={NOTICE_BODY_MAX} value={body} aria-invalid={errors.body ? true : undefined} aria-describedby={errors.body ? `${bodyId}-e` : undefined} onChange={(e) => (setBody(e.target.value), setErrors({ ...errors, body: undefined }))} />
        {errors.body && (
          <div id={`${bodyId}-e`} className="field-error" role="alert">
            {t(errors.body, { max: NOTICE_BODY_MAX })}
          </div>
        )}
      </div>
      <button type="submit" className="btn btn-primary">
        {t('admin.notices.send')}
      </button>
      {confirming && (
        <Dialog open title={t('admin.notices.confirmTitle')} onClose={() => setConfirming(false)}>
          <p>{t('admin.notices.confirmExplain')}</p>
          <p>
            <strong>{t('admin.notices.confirmAudience', { audience: audience(lang) })}</strong>
          </p>
          <div className="admin-card">
            <NoticeText notice={{ title: title.trim(), body: body.trim(), lang }} />
          </div>
          <FormError text={request.error} />
          <div className="admin-action-buttons">
            <button type="button" className="btn btn-secondary" onClick={() => setConfirming(false)}>
              {t('app.cancel')}
            </button>
            <button type="button" className="btn btn-primary" disabled={request.busy} onClick={() => void send()}>
              {t('admin.notices.sendNow')}
            </button>
          </div>
        </Dialog>
      )}
    </form>
  );
}

function WithdrawDialog({ notice, onClose, onChanged }: { notice: Notice; onClose(): void; onChanged(): void }) {
  const { t } = useTranslation();
  const request = useSubmit({
    holdOnSuccess: true,
    // Withdrawn meanwhile by someone else, or gone: the list shows what is true now.
    onError: (_, { code }) => {
      if (code === 'NOTICE_WITHDRAWN' || code === 'NOTICE_NOT_FOUND') onChanged();
    },
  });
  const confirm = () =>
    request.run(async () => {
      await withdrawNotice(notice.id);
      toast.success(t('admin.notices.withdrawnDone'));
      onClose();
      onChanged();
    });
  return (
    <Dialog open title={t('admin.notices.withdrawTitle')} onClose={onClose}>
      <p>{t('admin.notices.withdrawExplain')}</p>
      <div className="admin-card">
        <NoticeText notice={notice} />
      </div>
      <FormError text={request.error} />
      <div className="admin-action-buttons">
        <button type="button" className="btn btn-secondary" onClick={onClose}>
          {t('app.cancel')}
        </button>
        <button type="button" className="btn btn-down" disabled={request.busy} onClick={() => void confirm()}>
          {t('admin.notices.withdrawNow')}
        </button>
      </div>
    </Dialog>
  );
}

function NoticeItem({ notice, canWithdraw, onWithdraw }: { notice: Notice; canWithdraw: boolean; onWithdraw(): void }) {
  const { t, i18n } = useTranslation();
  const audience = useAudience();
  const withdrawnAt = notice.withdrawnAt ?? null;
  const withdrawn = withdrawnAt !== null;
  return (
    <li className={withdrawn ? 'admin-card admin-notice admin-notice-withdrawn' : 'admin-card admin-notice'}>
      <div className="admin-order-head">
        <span className="admin-notice-tags">
          <span className="admin-status">{audience(notice.lang ?? '')}</span>
          {withdrawn ? (
            <span className="admin-status admin-status-rejected">{t('admin.notices.withdrawnAt', { time: formatDateTime(withdrawnAt, i18n.language) })}</span>
          ) : (
            <span className="admin-status admin-status-completed">{t('admin.notices.shown')}</span>
          )}
        </span>
        <span className="muted">{formatDateTime(notice.time, i18n.language)}</span>
      </div>
      <NoticeText notice={notice} />
      {canWithdraw && !withdrawn && (
        <div className="admin-order-actions">
          <button type="button" className="btn btn-small btn-secondary" aria-label={t('admin.notices.withdrawOne', { title: notice.title })} onClick={onWithdraw}>
            {t('admin.notices.withdraw')}
          </button>
        </div>
      )}
    </li>
  );
}

export function NoticesPage() {
  const { t } = useTranslation();
  const canSend = useAdminSession((s) => adminCan(s.admin, 'notices:write'));
  const [page, setPage] = useState(1);
  const [listed, setListed] = useState<Page<Notice> | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [reload, setReload] = useState(0);
  const [withdrawing, setWithdrawing] = useState<Notice | null>(null);

  useEffect(() => {
    const controller = new AbortController();
    setFailure(null);
    fetchNotices(page, controller.signal)
      .then(setListed)
      .catch((e: unknown) => {
        if (!controller.signal.aborted) setFailure(errorMessage(e));
      });
    return () => controller.abort();
  }, [page, reload]);

  const again = useCallback(() => setReload((n) => n + 1), []);
  return (
    <div className="admin-page">
      <h1 className="page-title">{t('admin.nav.notices')}</h1>
      {canSend && <BroadcastForm onSent={() => (setPage(1), again())} />}
      <h2 className="admin-card-title">{t('admin.notices.sentList')}</h2>
      {failure ? (
        <ErrorState text={failure} onRetry={again} />
      ) : !listed ? (
        <SkeletonRows rows={3} columns={2} />
      ) : listed.items.length === 0 ? (
        <EmptyState text={t('admin.notices.none')} />
      ) : (
        <>
          <ul className="admin-orders" aria-label={t('admin.notices.sentList')}>
            {listed.items.map((n) => (
              <NoticeItem key={n.id} notice={n} canWithdraw={canSend} onWithdraw={() => setWithdrawing(n)} />
            ))}
          </ul>
          <Pager page={page} total={listed.total} pageSize={NOTICES_PAGE_SIZE} onPage={setPage} />
        </>
      )}
      {withdrawing && <WithdrawDialog notice={withdrawing} onClose={() => setWithdrawing(null)} onChanged={again} />}
    </div>
  );
}
