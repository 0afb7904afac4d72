/**
 * System notices: a broadcast to every user (shown once as a notice in their app and kept in
 * their notification centre), after a confirmation, and the notices sent so far.
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
import { adminCan, useAdminSession } from '@/stores/admin-session';
import { toast } from '@/stores/toast';

import { NOTICES_PAGE_SIZE, NOTICE_BODY_MAX, NOTICE_TITLE_MAX, type Notice, broadcast, checkNotice, fetchNotices } from '../api';

function BroadcastForm({ onSent }: { onSent(): void }) {
  const { t } = useTranslation();
  const bodyId = useId();
  const [title, setTitle] = useState('');
  const [body, setBody] = useState('');
  const [errors, setErrors] = useState<{ title?: string; body?: string }>({});
  const [confirming, setConfirming] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const check = (event: FormEvent) => {
    event.preventDefault();
    const found = checkNotice(title, body);
    setErrors(found);
    if (!found.title && !found.body) setConfirming(true);
  };
  const send = async () => {
    setBusy(true);
    setFailure(null);
    try {
      await broadcast(title.trim(), body.trim());
      toast.success(t('admin.notices.sent'));
      setTitle('');
      setBody('');
      setConfirming(false);
      onSent();
    } catch (e) {
      setFailure(errorMessage(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form className="admin-card admin-user-form" onSubmit={check} noValidate aria-label={t('admin.notices.new')}>
      <h2 className="admin-card-title">{t('admin.notices.new')}</h2>
      <Field label={t('admin.notices.title')} name="title" dir="auto" maxLength={NOTICE_TITLE_MAX} value={title} error={errors.title && t(errors.title, { max: NOTICE_TITLE_MAX })} onChange={(e) => (setTitle(e.target.value), setErrors({ ...errors, title: undefined }))} />
      <div className="field">
        <label htmlFor={bodyId} className="field-label">
          {t('admin.notices.body')}
        </label>
        <textarea id={bodyId} className="input admin-remark" dir="auto" rows={5} maxLength={NOTICE_BODY_MAX} value={body} aria-invalid={errors.body ? true : undefined} aria-describedby={errors.body ? `${bodyId}-e` : undefined} onChange={(e) => (setBody(e.target.value), setErrors({ ...errors, body: undefined }))} />
        {errors.body && (
          <div id={`${bodyId}-e`} className="field-error" role="alert">
            {t(errors.body, { max: NOTICE_BODY_MAX })}
          </div>
        )}
      </div>
      <p className="muted">{t('admin.notices.language')}</p>
      <button type="submit" className="btn btn-primary">
        {t('admin.notices.send')}
      </button>
      {confirming && (
        <Dialog open title={t('admin.notices.confirmTitle')} onClose={() => setConfirming(false)}>
          <p>{t('admin.notices.confirmExplain')}</p>
          <div className="admin-card">
            <strong dir="auto">{title.trim()}</strong>
            <p dir="auto" className="admin-notice-body">
              {body.trim()}
            </p>
          </div>
          <FormError text={failure} />
          <div className="admin-action-buttons">
            <button type="button" className="btn btn-secondary" onClick={() => setConfirming(false)}>
              {t('app.cancel')}
            </button>
            <button type="button" className="btn btn-primary" disabled={busy} onClick={() => void send()}>
              {t('admin.notices.sendNow')}
            </button>
          </div>
        </Dialog>
      )}
    </form>
  );
}

export function NoticesPage() {
  const { t, i18n } = useTranslation();
  const canSend = useAdminSession((s) => adminCan(s.admin, 'notices:write'));
  const [page, setPage] = useState(1);
  const [listed, setListed] = useState<Page<Notice> | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [reload, setReload] = useState(0);

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
          <ul className="admin-orders">
            {listed.items.map((n) => (
              <li key={n.id} className="admin-card">
                <div className="admin-order-head">
                  <strong dir="auto">{n.title}</strong>
                  <span className="muted">{formatDateTime(n.time, i18n.language)}</span>
                </div>
                <p dir="auto" className="admin-notice-body">
                  {n.body}
                </p>
              </li>
            ))}
          </ul>
          <Pager page={page} total={listed.total} pageSize={NOTICES_PAGE_SIZE} onPage={setPage} />
        </>
      )}
    </div>
  );
}
