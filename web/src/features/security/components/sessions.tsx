/**
 * Devices and sessions: every live sign-in with its device, address and time, this browser
 * marked, and "end session" for the others (their next call or websocket message signs them
 * out). Below, the sign-in history, paged.
 */
import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';

import { Pager } from '@/components/pager';
import { EmptyState, ErrorState, SkeletonRows } from '@/components/states';
import { type Page, errorMessage } from '@/lib/api-client';
import { formatDateTime } from '@/lib/format';

import { type LoginRow, type SessionView, securityApi } from '../api';

const HISTORY_PAGE_SIZE = 10;

export function Sessions() {
  const { t, i18n } = useTranslation();
  const [list, setList] = useState<SessionView[] | null>(null);
  const [error, setError] = useState<string | null>(null);

  const load = useCallback(async () => {
    setError(null);
    try {
      setList(await securityApi.sessions());
    } catch (e) {
      setError(errorMessage(e));
    }
  }, []);
  useEffect(() => void load(), [load]);

  const end = async (id: number) => {
    try {
      await securityApi.endSession(id);
      await load();
    } catch (e) {
      setError(errorMessage(e));
    }
  };

  return (
    <section className="card" aria-labelledby="sessions-title">
      <h2 id="sessions-title" className="section-title">
        {t('security.sessions.title')}
      </h2>
      {error ? (
        <ErrorState text={error} onRetry={() => void load()} />
      ) : !list ? (
        <SkeletonRows rows={2} columns={2} />
      ) : (
        <ul className="session-list">
          {list.map((s) => (
            <li key={s.id} className="session-row" data-testid={`session-${s.id}`}>
              <div>
                <strong>{s.device || t('security.sessions.unknownDevice')}</strong>
                {s.current && <span className="pill pill-up">{t('security.sessions.current')}</span>}
                <div className="muted small">
                  <span className="ltr">{s.ip}</span> · {formatDateTime(s.createdAt, i18n.language)}
                </div>
              </div>
              {!s.current && (
                <button type="button" className="btn btn-secondary btn-small" aria-label={t('security.sessions.endNamed', { device: s.device || s.ip })} onClick={() => void end(s.id)}>
                  {t('security.sessions.end')}
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

export function LoginHistory() {
  const { t, i18n } = useTranslation();
  const [page, setPage] = useState(1);
  const [data, setData] = useState<Page<LoginRow> | null>(null);
  const [error, setError] = useState<string | null>(null);

  const load = useCallback(async () => {
    setError(null);
    try {
      setData(await securityApi.loginHistory(page, HISTORY_PAGE_SIZE));
    } catch (e) {
      setError(errorMessage(e));
    }
  }, [page]);
  useEffect(() => void load(), [load]);
  return (
    <section className="card" aria-labelledby="logins-title">
      <h2 id="logins-title" className="section-title">
        {t('security.history.title')}
      </h2>
      {error ? (
        <ErrorState text={error} onRetry={() => void load()} />
      ) : !data ? (
        <SkeletonRows rows={3} columns={2} />
      ) : data.items.length === 0 ? (
        <EmptyState text={t('security.history.empty')} />
      ) : (
        <ul className="session-list">
          {data.items.map((row) => (
            <li key={row.session} className="session-row">
              <div>
                <strong>{row.device || t('security.sessions.unknownDevice')}</strong>
                <div className="muted small">
                  <span className="ltr">{row.ip}</span> · {formatDateTime(row.startedAt, i18n.language)}
                </div>
              </div>
              <span className="muted small">{row.endedAt ? t('security.history.ended', { time: formatDateTime(row.endedAt, i18n.language) }) : t('security.history.active')}</span>
            </li>
          ))}
        </ul>
      )}
      {data && <Pager page={page} total={data.total} pageSize={HISTORY_PAGE_SIZE} onPage={setPage} />}
    </section>
  );
}
