/**
 * Transaction history (spec §2, decisions §3): the chosen account's bills with totals in, out
 * and per type, a filter by every bill type, start and end dates (the user's local days), and
 * paging; loading, empty and error states.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';

import { ExportButton } from '@/components/export-button';
import { Pager } from '@/components/pager';
import { EmptyState, ErrorState, SkeletonRows } from '@/components/states';
import { errorMessage } from '@/lib/api-client';
import { formatMoney } from '@/lib/format';
import { useWallet, walletOf } from '@/stores/wallet';

import { BILL_TYPES, type BillType, type Bills, type Statement, walletApi } from '../api';
import { checkRange, dayEndMs, dayStartMs } from '@/lib/dates';
import { BillList } from './bill-list';

export const HISTORY_PAGE_SIZE = 20;

interface Filter {
  type: BillType | '';
  start: string;
  end: string;
}

/** The filters as the server reads them: the user's local days as a range in ms. */
function serverFilter(account: 'real' | 'demo', filter: Filter) {
  return {
    account,
    type: filter.type,
    start: filter.start ? String(dayStartMs(filter.start)) : undefined,
    end: filter.end ? String(dayEndMs(filter.end)) : undefined,
  };
}

/** The printable statement of the same account and days (every type: balances move with all). */
function statementLink(account: 'real' | 'demo', filter: Filter): string {
  const days = new URLSearchParams({ account });
  if (filter.start) days.set('start', filter.start);
  if (filter.end) days.set('end', filter.end);
  return `/account/statement?${days.toString()}`;
}

export function TransactionHistory() {
  const { t, i18n } = useTranslation();
  const account = useWallet((s) => walletOf(s.account));
  const [draft, setDraft] = useState<Filter>({ type: '', start: '', end: '' });
  const [filter, setFilter] = useState<Filter>(draft);
  const [rangeError, setRangeError] = useState<string | null>(null);
  const [page, setPage] = useState(1);
  const [data, setData] = useState<Bills | null>(null);
  const [statement, setStatement] = useState<Statement | null>(null);
  const [error, setError] = useState<string | null>(null);
  const request = useRef(0);

  const load = useCallback(async () => {
    const id = ++request.current;
    setError(null);
    try {
      const answer = await walletApi.bills({ ...serverFilter(account, filter), page, pageSize: HISTORY_PAGE_SIZE });
      if (id === request.current) setData(answer);
    } catch (e) {
      if (id === request.current) setError(errorMessage(e, 'errors.fetchRecords'));
    }
  }, [account, filter, page]);

  useEffect(() => {
    setData(null);
    void load();
  }, [load]);

  // The range's opening and closing balances, for every type and page: shown when they come.
  useEffect(() => {
    let current = true;
    setStatement(null);
    walletApi.statement(serverFilter(account, { type: '', start: filter.start, end: filter.end })).then(
      (answer) => current && setStatement(answer),
      () => undefined,
    );
    return () => {
      current = false;
    };
    // Balances move with every type: a change of the type filter does not ask again.
  }, [account, filter.start, filter.end]);

  const apply = (next: Filter) => {
    setDraft(next);
    const problem = checkRange(next.start, next.end);
    setRangeError(problem ? t(problem) : null);
    if (problem) return;
    setFilter(next);
    setPage(1);
  };

  const money = (v: string) => formatMoney(v, i18n.language, true);
  return (
    <section aria-labelledby="history-title">
      <h1 id="history-title" className="page-title">
        {t('wallet.history.title')} <span className="muted small">{t(`header.${account}`)}</span>
      </h1>
      <div className="card history-filters" role="search" aria-label={t('wallet.history.filters')}>
        <div className="field">
          <label className="field-label" htmlFor="history-type">
            {t('wallet.history.type')}
          </label>
          <select id="history-type" className="input" value={draft.type} onChange={(e) => apply({ ...draft, type: e.target.value as BillType | '' })}>
            <option value="">{t('wallet.history.allTypes')}</option>
            {BILL_TYPES.map((type) => (
              <option key={type} value={type}>
                {t(`wallet.billType.${type}`)}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label className="field-label" htmlFor="history-start">
            {t('wallet.history.start')}
          </label>
          <input id="history-start" type="date" className="input" value={draft.start} max={draft.end || undefined} onChange={(e) => apply({ ...draft, start: e.target.value })} />
        </div>
        <div className="field">
          <label className="field-label" htmlFor="history-end">
            {t('wallet.history.end')}
          </label>
          <input
            id="history-end"
            type="date"
            className="input"
            value={draft.end}
            min={draft.start || undefined}
            aria-invalid={rangeError ? true : undefined}
            aria-describedby={rangeError ? 'history-range-error' : undefined}
            onChange={(e) => apply({ ...draft, end: e.target.value })}
          />
        </div>
        {(draft.type || draft.start || draft.end) && (
          <button type="button" className="btn btn-ghost btn-small" onClick={() => apply({ type: '', start: '', end: '' })}>
            {t('wallet.history.clear')}
          </button>
        )}
        <ExportButton fetchFile={() => walletApi.exportBills(serverFilter(account, filter))} />
        <Link to={statementLink(account, filter)} className="btn btn-ghost btn-small">
          {t('wallet.statement.open')}
        </Link>
        {rangeError && (
          <div id="history-range-error" className="field-error" role="alert">
            {rangeError}
          </div>
        )}
      </div>
      {data && (
        <dl className="card history-totals" aria-label={t('wallet.history.totals')}>
          <div>
            <dt>{t('wallet.history.count')}</dt>
            <dd className="num" data-testid="history-count">
              {data.total}
            </dd>
          </div>
          <div>
            <dt>{t('wallet.history.in')}</dt>
            <dd className="num up">
              <bdi dir="ltr">{money(data.totalIn)}</bdi>
            </dd>
          </div>
          <div>
            <dt>{t('wallet.history.out')}</dt>
            <dd className="num down">
              <bdi dir="ltr">{money(data.totalOut)}</bdi>
            </dd>
          </div>
          {statement && (
            <>
              <div>
                <dt>{t('wallet.history.opening')}</dt>
                <dd className="num" data-testid="history-opening">
                  <bdi dir="ltr">{statement.opening ? formatMoney(statement.opening, i18n.language) : '—'}</bdi>
                </dd>
              </div>
              <div>
                <dt>{t('wallet.history.closing')}</dt>
                <dd className="num" data-testid="history-closing">
                  <bdi dir="ltr">{statement.closing ? formatMoney(statement.closing, i18n.language) : '—'}</bdi>
                </dd>
              </div>
            </>
          )}
        </dl>
      )}
      {error ? (
        <ErrorState text={error} onRetry={() => void load()} />
      ) : !data ? (
        <SkeletonRows rows={6} columns={3} />
      ) : data.items.length === 0 ? (
        <EmptyState text={t(filter.type || filter.start || filter.end ? 'wallet.history.noMatch' : 'wallet.noTransactions')} />
      ) : (
        <div className="card">
          <BillList bills={data.items} />
        </div>
      )}
      {data && <Pager page={page} total={data.total} pageSize={HISTORY_PAGE_SIZE} onPage={setPage} />}
    </section>
  );
}
