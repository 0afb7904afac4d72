/**
 * Contract records (spec §2): open and settled contracts with paging, kept current by the
 * private stream, and a details view with both ticks that decided the result.
 *
 * The page opens on the list that has something to show: the open contracts, or the settled
 * ones when nothing is open but something has settled (a contract that just ended). A tab in
 * the URL (`?tab=open|settled`, which a click on a tab writes) is always respected.
 *
 * An entered open contract can be sold back at its live offer (decisions §11); a contract sold
 * early shows it, with what the sale paid. A copy of a trader's order (copy trading) is marked
 * with the trader it was copied from, and a filter shows all contracts, only my own orders or
 * only the copies: `?copied=false|true` in the URL (which a choice writes, so that a link, the
 * copy trading page's "My copied trades", can open on it), sent to the server as is.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router';

import { Pager } from '@/components/pager';
import { SellAction } from '@/components/sell-contract';
import { EmptyState, ErrorState, SkeletonRows } from '@/components/states';
import { ExportButton } from '@/components/export-button';
import { Tabs } from '@/components/tabs';
import { type Page, errorMessage } from '@/lib/api-client';
import { formatDateTime, formatMoney } from '@/lib/format';
import { useWsEvent } from '@/lib/ws';
import { useSession } from '@/stores/session';

import { type ContractRecord, type Origin, RECORDS_PAGE_SIZE, recordsApi } from '../api';
import { useLiveOffers } from '../hooks/use-live-offers';
import { ContractDetails } from './contract-details';
import { OriginFilter, copiedParam, originOf } from './origin-filter';

type Tab = 'open' | 'settled';

function tabOf(value: string | null): Tab | null {
  return value === 'open' || value === 'settled' ? value : null;
}

/**
 * The first page of the list to open on when no tab was asked for: the open contracts,
 * unless none is open and some have settled (of those the filter shows).
 */
async function firstList(origin: Origin): Promise<{ tab: Tab; answer: Page<ContractRecord> }> {
  const open = await recordsApi.list('open', 1, origin);
  if (open.items.length > 0) return { tab: 'open', answer: open };
  const settled = await recordsApi.list('settled', 1, origin);
  return settled.items.length > 0 ? { tab: 'settled', answer: settled } : { tab: 'open', answer: open };
}

const EMPTY: Record<Origin, string> = { all: 'records.empty', own: 'records.emptyOwn', copies: 'records.emptyCopies' };

/** Private-stream events are gathered for this long before the list is read again. */
export const REFRESH_DEBOUNCE_MS = 300;

export function outcomeKey(record: Pick<ContractRecord, 'status' | 'outcome'>): string {
  if (record.outcome) return `records.outcome.${record.outcome}`;
  return `records.status.${record.status}`;
}

/** The record's state in words; a sale says what it paid. */
export function stateText(record: ContractRecord, t: (key: string, options?: Record<string, unknown>) => string, language: string): string {
  if (record.outcome === 'sold' && record.credited) return t('records.soldFor', { amount: formatMoney(record.credited, language) });
  return t(outcomeKey(record));
}

function ProfitCell({ record }: { record: ContractRecord }) {
  const { i18n } = useTranslation();
  const profit = record.profit ?? null;
  if (profit === null) return <span className="muted">--</span>;
  const tone = profit.startsWith('-') ? 'down' : profit === '0' || /^0(\.0+)?$/.test(profit) ? '' : 'up';
  return <span className={`num ${tone}`}>{formatMoney(profit, i18n.language, true)}</span>;
}

export function LoginRequired() {
  const { t } = useTranslation();
  return (
    <div className="empty-state">
      <h2>{t('auth.loginRequired')}</h2>
      <p>{t('auth.pleaseLogin')}</p>
      <Link to="/login" className="btn btn-primary">
        {t('auth.login')}
      </Link>
    </div>
  );
}

export function ContractRecords() {
  const { t, i18n } = useTranslation();
  const signedIn = useSession((s) => s.token !== null);
  const [params, setParams] = useSearchParams();
  // The tab asked for in the URL wins; else the one chosen by what there is to show (null
  // until the first answers came).
  const [chosen, setChosen] = useState<Tab | null>(null);
  const tab = tabOf(params.get('tab')) ?? chosen;
  const origin = originOf(params.get('copied'));
  // The page of the list shown; another list (tab or filter, however the URL changed) starts
  // at its first page, in the same render as the change, so no other page of it is read.
  const list = `${tab}/${origin}`;
  const [paging, setPaging] = useState({ list, page: 1 });
  if (paging.list !== list) setPaging({ list, page: 1 });
  const page = paging.list === list ? paging.page : 1;
  const setPage = (next: number) => setPaging({ list, page: next });
  const [data, setData] = useState<Page<ContractRecord> | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [selected, setSelected] = useState<number | null>(null);
  const request = useRef(0);
  const debounce = useRef<ReturnType<typeof setTimeout> | null>(null);
  const sellable = (data?.items ?? []).filter((r) => r.status === 'open' && r.entry).map((r) => r.id);
  const offers = useLiveOffers(tab === 'open' ? sellable : []);

  // The list the chooser has just read, so that showing its tab does not read it again.
  const chosenAnswer = useRef<Page<ContractRecord> | null>(null);

  const load = useCallback(async () => {
    const id = ++request.current;
    setError(null);
    try {
      if (tab === null) {
        const first = await firstList(origin);
        if (id !== request.current) return;
        chosenAnswer.current = first.answer;
        setData(first.answer);
        setChosen(first.tab);
        return;
      }
      const answer = await recordsApi.list(tab, page, origin);
      if (id === request.current) setData(answer);
    } catch (e) {
      if (id === request.current) setError(errorMessage(e, 'records.loadFailed'));
    }
  }, [tab, page, origin]);

  useEffect(() => {
    if (!signedIn) return;
    if (chosenAnswer.current) {
      // The chooser's answer is this tab's first page.
      chosenAnswer.current = null;
      return;
    }
    setData(null);
    void load();
  }, [load, signedIn]);

  useEffect(() => () => void (debounce.current && clearTimeout(debounce.current)), []);
  const refreshSoon = () => {
    if (debounce.current) clearTimeout(debounce.current);
    debounce.current = setTimeout(() => void load(), REFRESH_DEBOUNCE_MS);
  };
  useWsEvent('order.accepted', refreshSoon);
  useWsEvent('order.entered', refreshSoon);
  useWsEvent('order.settled', refreshSoon);
  useWsEvent('resync', refreshSoon);

  if (!signedIn) return <LoginRequired />;
  return (
    <section aria-labelledby="records-title">
      <div className="page-title-row">
        <h1 id="records-title" className="page-title">
          {t('records.title')}
        </h1>
        {tab && <ExportButton fetchFile={() => recordsApi.export(tab)} />}
      </div>
      <Tabs
        label={t('records.title')}
        value={tab}
        onChange={(next) => {
          setParams(
            (current) => {
              const nextParams = new URLSearchParams(current);
              nextParams.set('tab', next);
              return nextParams;
            },
            { replace: true },
          );
        }}
        items={[
          { key: 'open', label: t('records.open') },
          { key: 'settled', label: t('records.settled') },
        ]}
      />
      <OriginFilter
        value={origin}
        onChange={(next) => {
          setParams(
            (current) => {
              const nextParams = new URLSearchParams(current);
              const copied = copiedParam(next);
              if (copied === null) nextParams.delete('copied');
              else nextParams.set('copied', copied);
              return nextParams;
            },
            { replace: true },
          );
        }}
      />
      {error ? (
        <ErrorState text={error} onRetry={() => void load()} />
      ) : !data ? (
        <SkeletonRows rows={6} columns={4} />
      ) : data.items.length === 0 ? (
        <EmptyState text={t(EMPTY[origin])} />
      ) : (
        <ul className="record-list">
          {data.items.map((record) => (
            <li key={record.id}>
              <button
                type="button"
                className="record-row"
                onClick={() => setSelected(record.id)}
                aria-label={record.copiedFrom ? t('records.openCopyDetails', { id: record.id, uid: record.copiedFrom }) : t('records.openDetails', { id: record.id })}
              >
                <span className="record-main">
                  <strong className="ltr">{record.symbol}</strong>
                  <span className={`pill ${record.direction === 'up' ? 'pill-up' : 'pill-down'}`}>{t(`records.${record.direction}`)}</span>
                  <span className="muted">{t(`header.${record.account}`)}</span>
                  {record.copiedFrom ? <span className="pill pill-copy">{t('records.copiedFrom', { uid: record.copiedFrom })}</span> : null}
                </span>
                <span className="record-amount num">{formatMoney(record.stake, i18n.language)} USDT</span>
                <span className="record-time muted">{formatDateTime(record.acceptedAt, i18n.language)}</span>
                <span className="record-result">
                  <span className="record-state">{stateText(record, t, i18n.language)}</span>
                  <ProfitCell record={record} />
                </span>
              </button>
              {tab === 'open' && record.status === 'open' && record.entry && (
                <SellAction contractId={record.id} offer={offers[record.id]} onLost={() => void load()} />
              )}
            </li>
          ))}
        </ul>
      )}
      {data && <Pager page={page} total={data.total} pageSize={RECORDS_PAGE_SIZE} onPage={setPage} />}
      {selected !== null && <ContractDetails id={selected} onClose={() => setSelected(null)} />}
    </section>
  );
}
