/**
 * The audit log (decisions §1): every admin action, refused ones too, newest first, with the
 * admin, the time, the target and details; filtered by admin, action and local days.
 */
import { type FormEvent, useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';

import { Field } from '@/components/field';
import { Pager } from '@/components/pager';
import { EmptyState, ErrorState, SkeletonRows } from '@/components/states';
import { type Page, errorMessage } from '@/lib/api-client';
import { dayEndMs, dayStartMs } from '@/lib/dates';
import { formatDateTime } from '@/lib/format';

import { AUDIT_ACTIONS, AUDIT_PAGE_SIZE, type AuditFilter, type AuditRow, fetchAudit } from '../api';

const NO_FILTER: AuditFilter = { admin: null, action: null, start: null, end: null };

interface Draft {
  admin: string;
  action: string;
  start: string;
  end: string;
}

/** The filter a draft asks for, or the catalogue key of what is wrong with it. */
export function readDraft(draft: Draft): AuditFilter | { error: 'admin' | 'dates'; key: string } {
  const admin = draft.admin.trim();
  if (admin && !/^[1-9]\d{0,9}$/.test(admin)) return { error: 'admin', key: 'admin.audit.adminInvalid' };
  const start = draft.start ? dayStartMs(draft.start) : null;
  const end = draft.end ? dayEndMs(draft.end) : null;
  if ((draft.start && start === null) || (draft.end && end === null)) return { error: 'dates', key: 'errors.invalidDate' };
  if (start !== null && end !== null && start > end) return { error: 'dates', key: 'admin.audit.endBeforeStart' };
  return { admin: admin ? Number(admin) : null, action: draft.action || null, start, end };
}

export function AuditPage() {
  const { t, i18n } = useTranslation();
  const lang = i18n.language;
  const [draft, setDraft] = useState<Draft>({ admin: '', action: '', start: '', end: '' });
  const [problem, setProblem] = useState<{ error: 'admin' | 'dates'; key: string } | null>(null);
  const [filter, setFilter] = useState<AuditFilter>(NO_FILTER);
  const [page, setPage] = useState(1);
  const [listed, setListed] = useState<Page<AuditRow> | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [reload, setReload] = useState(0);

  useEffect(() => {
    const controller = new AbortController();
    setFailure(null);
    fetchAudit(filter, page, controller.signal)
      .then(setListed)
      .catch((e: unknown) => {
        if (!controller.signal.aborted) setFailure(errorMessage(e));
      });
    return () => controller.abort();
  }, [filter, page, reload]);

  const again = useCallback(() => setReload((n) => n + 1), []);
  const apply = (event: FormEvent) => {
    event.preventDefault();
    const read = readDraft(draft);
    if ('error' in read) {
      setProblem(read);
      return;
    }
    setProblem(null);
    setFilter(read);
    setPage(1);
    setListed(null);
  };
  const set = (key: keyof Draft) => (e: React.ChangeEvent<HTMLInputElement | HTMLSelectElement>) => {
    setDraft({ ...draft, [key]: e.target.value });
    setProblem(null);
  };

  return (
    <div className="admin-page">
      <h1 className="page-title">{t('admin.nav.audit')}</h1>
      <form className="admin-card admin-filters" onSubmit={apply} noValidate aria-label={t('admin.audit.filters')}>
        <Field label={t('admin.audit.admin')} name="admin" inputMode="numeric" dir="ltr" value={draft.admin} onChange={set('admin')} error={problem?.error === 'admin' ? t(problem.key) : undefined} />
        <label className="field">
          <span className="field-label">{t('admin.audit.action')}</span>
          <select className="input" value={draft.action} onChange={set('action')}>
            <option value="">{t('admin.audit.allActions')}</option>
            {AUDIT_ACTIONS.map((a) => (
              <option key={a} value={a}>
                {t(`admin.audit.actions.${a}`)}
              </option>
            ))}
          </select>
        </label>
        <Field label={t('admin.audit.from')} name="start" type="date" value={draft.start} onChange={set('start')} error={problem?.error === 'dates' ? t(problem.key) : undefined} />
        <Field label={t('admin.audit.to')} name="end" type="date" value={draft.end} onChange={set('end')} />
        <button type="submit" className="btn btn-primary">
          {t('admin.audit.apply')}
        </button>
      </form>
      {failure ? (
        <ErrorState text={failure} onRetry={again} />
      ) : !listed ? (
        <SkeletonRows rows={6} columns={4} />
      ) : listed.items.length === 0 ? (
        <EmptyState text={t('admin.audit.empty')} />
      ) : (
        <>
          <div className="admin-card admin-table-wrap">
            <table className="admin-table admin-audit">
              <thead>
                <tr>
                  <th scope="col">{t('admin.audit.time')}</th>
                  <th scope="col">{t('admin.audit.admin')}</th>
                  <th scope="col">{t('admin.audit.action')}</th>
                  <th scope="col">{t('admin.audit.detail')}</th>
                  <th scope="col">{t('admin.audit.result')}</th>
                </tr>
              </thead>
              <tbody>
                {listed.items.map((row) => (
                  <tr key={row.index}>
                    <td>{formatDateTime(row.time, lang)}</td>
                    <td className="num">#{row.admin}</td>
                    <td>{t(`admin.audit.actions.${row.action}`, { defaultValue: row.action })}</td>
                    <td className="admin-audit-detail" dir="ltr">
                      {row.detail}
                    </td>
                    <td>{row.refused ? <span className="admin-status admin-status-rejected">{t('admin.audit.refused', { code: row.refused })}</span> : <span className="admin-status admin-status-completed">{t('admin.audit.done')}</span>}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager page={page} total={listed.total} pageSize={AUDIT_PAGE_SIZE} onPage={setPage} />
        </>
      )}
    </div>
  );
}
