/**
 * Security events, beside the sign-in history: each time too many wrong authenticator codes
 * paused the account's two-factor actions, with when it happened, how many wrong codes led to
 * it and until when, newest first and paged. One that happens while the page is open (the
 * private stream's `security` frame) shows at once.
 */
import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';

import { Pager } from '@/components/pager';
import { EmptyState, ErrorState, SkeletonRows } from '@/components/states';
import { type Page, errorMessage } from '@/lib/api-client';
import { formatDateTime } from '@/lib/format';
import { useWsEvent } from '@/lib/ws';

import { type SecurityEventRow, securityApi } from '../api';

const EVENTS_PAGE_SIZE = 10;

export function SecurityEvents() {
  const { t, i18n } = useTranslation();
  const [page, setPage] = useState(1);
  const [data, setData] = useState<Page<SecurityEventRow> | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [version, setVersion] = useState(0);

  const load = useCallback(async () => {
    setError(null);
    try {
      setData(await securityApi.securityEvents(page, EVENTS_PAGE_SIZE));
    } catch (e) {
      setError(errorMessage(e));
    }
  }, [page]);
  // Read again when the stream announces a new event.
  useEffect(() => void load(), [load, version]);
  useWsEvent('security', () => setVersion((v) => v + 1));

  const date = (ms: number) => formatDateTime(ms, i18n.language);
  return (
    <section className="card" aria-labelledby="security-events-title">
      <h2 id="security-events-title" className="section-title">
        {t('security.events.title')}
      </h2>
      {error ? (
        <ErrorState text={error} onRetry={() => void load()} />
      ) : !data ? (
        <SkeletonRows rows={2} columns={2} />
      ) : data.items.length === 0 ? (
        <EmptyState text={t('security.events.empty')} />
      ) : (
        <ul className="session-list">
          {data.items.map((row) => (
            <li key={`${row.kind}-${row.until}`} className="session-row">
              <div>
                <strong>{row.kind === 'twoFactorLocked' ? t('security.events.twoFactorLocked') : t('security.events.other')}</strong>
                <div className="muted small">
                  {date(row.time)} · {t('security.events.failures', { failures: row.failures })}
                </div>
              </div>
              <span className="muted small">{t('security.events.until', { time: date(row.until) })}</span>
            </li>
          ))}
        </ul>
      )}
      {data && <Pager page={page} total={data.total} pageSize={EVENTS_PAGE_SIZE} onPage={setPage} />}
    </section>
  );
}
