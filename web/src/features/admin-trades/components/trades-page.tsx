/**
 * Trades: every contract, newest first, filtered by user, product, state, account and local
 * days; each with its terms, entry and exit, and result. The list is live (live.ts): new
 * contracts that match come on top of page 1, briefly highlighted, and entries and
 * settlements change their rows in place. Each time the live stream is (re)authenticated the
 * list is read again; frames that arrive while a read is under way are applied on top of it.
 */
import { type FormEvent, useCallback, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';

import { Field } from '@/components/field';
import { Pager } from '@/components/pager';
import { EmptyState, ErrorState, SkeletonRows } from '@/components/states';
import { type Page, errorMessage } from '@/lib/api-client';
import { dayEndMs, dayStartMs } from '@/lib/dates';
import { formatDateTime, formatMoney, formatRate } from '@/lib/format';
import type { AdminTradeFrame } from '@/lib/ws-frames';

import { type AdminContract, NO_TRADE_FILTER, TRADES_PAGE_SIZE, type TradeFilter, fetchTrades } from '../api';
import { useLiveTrades } from '../hooks/use-live-trades';
import { type TradesView, applyTradeFrame } from '../live';
import { LiveIndicator } from './live-indicator';

/** How long a new row stays highlighted. */
const FRESH_MS = 4_000;

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
  const [listed, setListedState] = useState<Page<AdminContract> | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [reload, setReload] = useState(0);
  const [fresh, setFresh] = useState<ReadonlySet<number>>(new Set());

  // Frames are applied to the list as it is now, outside React's updaters.
  const listedRef = useRef(listed);
  const setListed = useCallback((list: Page<AdminContract> | null) => {
    listedRef.current = list;
    setListedState(list);
  }, []);
  const view = useRef<TradesView>({ filter, page, pageSize: TRADES_PAGE_SIZE });
  view.current = { filter, page, pageSize: TRADES_PAGE_SIZE };
  /** Frames received while a read is under way, applied again on top of its answer. */
  const arrived = useRef<AdminTradeFrame[] | null>(null);
  const timers = useRef(new Set<ReturnType<typeof setTimeout>>());
  useEffect(() => {
    const pending = timers.current;
    return () => pending.forEach(clearTimeout);
  }, []);

  useEffect(() => {
    const controller = new AbortController();
    const during: AdminTradeFrame[] = [];
    arrived.current = during;
    setFailure(null);
    fetchTrades(filter, page, controller.signal)
      .then((read) => {
        let list = read;
        for (const frame of during) list = applyTradeFrame(list, frame, view.current).list;
        setListed(list);
      })
      .catch((e: unknown) => {
        if (!controller.signal.aborted) setFailure(errorMessage(e));
      })
      .finally(() => {
        if (arrived.current === during) arrived.current = null;
      });
    return () => {
      controller.abort();
      if (arrived.current === during) arrived.current = null;
    };
  }, [filter, page, reload, setListed]);

  const again = useCallback(() => setReload((n) => n + 1), []);
  const highlight = (id: number) => {
    setFresh((ids) => new Set(ids).add(id));
    const timer = setTimeout(() => {
      timers.current.delete(timer);
      setFresh((ids) => {
        const next = new Set(ids);
        next.delete(id);
        return next;
      });
    }, FRESH_MS);
    timers.current.add(timer);
  };
  const live = useLiveTrades({
    onFrame(frame) {
      arrived.current?.push(frame);
      const current = listedRef.current;
      if (!current) return;
      const { list, added } = applyTradeFrame(current, frame, view.current);
      if (list !== current) setListed(list);
      if (added !== null) highlight(added);
    },
    // Authenticated (first time or after a reconnect): what was missed is read, not assumed.
    onLive: again,
  });
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
      <div className="admin-page-head">
        <h1 className="page-title">{t('admin.nav.trades')}</h1>
        <LiveIndicator status={live.status} refused={live.refused} onRetry={live.retry} />
      </div>
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
      {failure && <ErrorState text={failure} onRetry={again} />}
      {failure && !listed ? null : !listed ? (
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
                    <tr key={c.id} className={fresh.has(c.id) ? 'admin-row-new' : undefined}>
                      <th scope="row" className="num">
                        {c.id}
                        {fresh.has(c.id) && <span className="sr-only"> {t('admin.trades.live.newRow')}</span>}
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
                        {/* Entry, then exit: left to right in every language, as the arrow points. */}
                        <bdi dir="ltr">
                          {c.entry?.price ?? '—'} → {c.exit?.price ?? '—'}
                        </bdi>
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
