/**
 * Trades: every contract, newest first, filtered by user, product, state, account and local
 * days; each with its terms, entry and exit, and result.
 */
import { type FormEvent, useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';

import { Field } from '@/components/field';
import { Pager } from '@/components/pager';
import { EmptyState, ErrorState, SkeletonRows } from '@/components/states';
import { type Page, errorMessage } from '@/lib/api-client';
import { dayEndMs, dayStartMs } from '@/lib/dates';
import { formatDateTime, formatMoney, formatRate } from '@/lib/format';

import { type AdminContract, NO_TRADE_FILTER, TRADES_PAGE_SIZE, type TradeFilter, fetchTrades } from '../api';

interface Draft {
  user: string;
  symbol: string;
  status: string;
  account: string;
  start: string;
  end: string;
}

/** The filter a draft asks for, or the field and catalogue key of what is wrong. */
export function readTradeDraft(d: Draft): TradeFilter | { field: keyof Draft; key: string } {
  const user = d.user.trim();
  if (user && !/^[1-9]\d{0,9}$/.test(user)) return { field: 'user', key: 'admin.trades.userInvalid' };
  const symbol = d.symbol.trim().toUpperCase().replace('/', '');
  if (symbol && !/^[A-Z0-9]{3,16}$/.test(symbol)) return { field: 'symbol', key: 'admin.trades.symbolInvalid' };
  const start = d.start ? dayStartMs(d.start) : null;
  const end = d.end ? dayEndMs(d.end) : null;
  if ((d.start && start === null) || (d.end && end === null)) return { field: 'start', key: 'errors.invalidDate' };
  if (start !== null && end !== null && start > end) return { field: 'start', key: 'admin.audit.endBeforeStart' };
  return {
    user: user ? Number(user) : null,
    symbol: symbol || null,
    status: (d.status || null) as TradeFilter['status'],
    account: (d.account || null) as TradeFilter['account'],
    start,
    end,
  };
}

function resultOf(c: AdminContract, t: (k: string) => string, lang: string): { text: string; className: string } {
  if (c.status === 'waiting_entry' || c.status === 'open') return { text: t(`admin.users.contractStatus.${c.status}`), className: 'muted' };
  const profit = c.profit ?? '0';
  const outcome = t(`admin.trades.outcomes.${c.outcome ?? 'void'}`);
  return { text: `${outcome} ${formatMoney(profit, lang, true)}`, className: profit.startsWith('-') ? 'down' : profit === '0' || /^0(\.0+)?$/.test(profit) ? 'muted' : 'up' };
}

export function TradesPage() {
  const { t, i18n } = useTranslation();
  const lang = i18n.language;
  const [draft, setDraft] = useState<Draft>({ user: '', symbol: '', status: '', account: '', start: '', end: '' });
  const [problem, setProblem] = useState<{ field: keyof Draft; key: string } | null>(null);
  const [filter, setFilter] = useState<TradeFilter>(NO_TRADE_FILTER);
  const [page, setPage] = useState(1);
  const [listed, setListed] = useState<Page<AdminContract> | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [reload, setReload] = useState(0);

  useEffect(() => {
    const controller = new AbortController();
    setFailure(null);
    fetchTrades(filter, page, controller.signal)
      .then(setListed)
      .catch((e: unknown) => {
        if (!controller.signal.aborted) setFailure(errorMessage(e));
      });
    return () => controller.abort();
  }, [filter, page, reload]);

  const again = useCallback(() => setReload((n) => n + 1), []);
  const apply = (event: FormEvent) => {
    event.preventDefault();
    const read = readTradeDraft(draft);
    if ('key' in read) {
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
  const errorFor = (field: keyof Draft) => (problem?.field === field ? t(problem.key) : undefined);

  return (
    <div className="admin-page">
      <h1 className="page-title">{t('admin.nav.trades')}</h1>
      <form className="admin-card admin-filters admin-filters-wide" onSubmit={apply} noValidate aria-label={t('admin.trades.filters')}>
        <Field label={t('admin.trades.user')} name="user" inputMode="numeric" dir="ltr" value={draft.user} onChange={set('user')} error={errorFor('user')} />
        <Field label={t('admin.trades.symbol')} name="symbol" dir="ltr" value={draft.symbol} onChange={set('symbol')} error={errorFor('symbol')} />
        <label className="field">
          <span className="field-label">{t('admin.trades.status')}</span>
          <select className="input" value={draft.status} onChange={set('status')}>
            <option value="">{t('admin.orders.all')}</option>
            <option value="open">{t('admin.trades.open')}</option>
            <option value="settled">{t('admin.trades.settled')}</option>
          </select>
        </label>
        <label className="field">
          <span className="field-label">{t('admin.trades.account')}</span>
          <select className="input" value={draft.account} onChange={set('account')}>
            <option value="">{t('admin.orders.all')}</option>
            <option value="real">{t('admin.users.account.real')}</option>
            <option value="demo">{t('admin.users.account.demo')}</option>
          </select>
        </label>
        <Field label={t('admin.audit.from')} name="start" type="date" value={draft.start} onChange={set('start')} error={errorFor('start')} />
        <Field label={t('admin.audit.to')} name="end" type="date" value={draft.end} onChange={set('end')} />
        <button type="submit" className="btn btn-primary">
          {t('admin.audit.apply')}
        </button>
      </form>
      {failure ? (
        <ErrorState text={failure} onRetry={again} />
      ) : !listed ? (
        <SkeletonRows rows={8} columns={6} />
      ) : listed.items.length === 0 ? (
        <EmptyState text={t('admin.trades.empty')} />
      ) : (
        <>
          <div className="admin-card admin-table-wrap">
            <table className="admin-table">
              <thead>
                <tr>
                  <th scope="col">#</th>
                  <th scope="col">{t('admin.trades.user')}</th>
                  <th scope="col">{t('admin.trades.symbol')}</th>
                  <th scope="col">{t('admin.trades.direction')}</th>
                  <th scope="col">{t('admin.trades.stake')}</th>
                  <th scope="col">{t('admin.trades.entryExit')}</th>
                  <th scope="col">{t('admin.trades.accepted')}</th>
                  <th scope="col">{t('admin.trades.result')}</th>
                </tr>
              </thead>
              <tbody>
                {listed.items.map((c) => {
                  const result = resultOf(c, t, lang);
                  return (
                    <tr key={c.id}>
                      <th scope="row" className="num">
                        {c.id}
                      </th>
                      <td className="num">{c.user}</td>
                      <td dir="ltr">{c.symbol}</td>
                      <td className={c.direction === 'up' ? 'up' : 'down'}>
                        {t(`admin.users.direction.${c.direction}`)} · {formatRate(c.payoutRate, lang)}
                      </td>
                      <td className="num">
                        {formatMoney(c.stake, lang)} <span className="muted">{t(`admin.users.account.${c.account}`)}</span>
                      </td>
                      <td className="num">
                        {c.entry?.price ?? '—'} → {c.exit?.price ?? '—'}
                      </td>
                      <td>{formatDateTime(c.acceptedAt, lang)}</td>
                      <td className={result.className}>{result.text}</td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
          <Pager page={page} total={listed.total} pageSize={TRADES_PAGE_SIZE} onPage={setPage} />
        </>
      )}
    </div>
  );
}
