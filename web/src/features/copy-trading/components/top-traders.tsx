/**
 * Top traders: the traders who share their trades, ranked by their real-account profit over
 * 24 hours, 7 days or 30 days (the period is kept in the address, `?period=7d`). Each line
 * leads to the trader's profile. The server refreshes the ranking at most once a minute; the
 * page says when it was refreshed.
 */
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router';

import { EmptyState, ErrorState, SkeletonRows } from '@/components/states';
import { Tabs } from '@/components/tabs';
import { formatTime } from '@/lib/format';

import { PERIODS, type Period, type TraderItem } from '../api';
import { useTraderBoard } from '../hooks/use-trader-board';
import { Profit, WinRate } from './figures';

/** Lines shown at first, and added by "Show more". */
export const ROWS_SHOWN = 20;

function periodOf(value: string | null): Period {
  return PERIODS.find((p) => p === value) ?? '24h';
}

function TraderRow({ item, rank, copying }: { item: TraderItem; rank: number; copying: boolean }) {
  const { t } = useTranslation();
  return (
    <li className="trader-row">
      <span className="trader-rank num" aria-hidden="true">
        {rank}
      </span>
      <span className="trader-name">
        <Link to={`/copy/${item.uid}`} aria-label={t('copyTrading.viewProfile', { name: item.name })}>
          <span dir="auto">{item.name}</span>
        </Link>
        {copying && <span className="pill pill-copy">{t('copyTrading.copying')}</span>}
      </span>
      <dl className="trader-figures">
        <div>
          <dt>{t('copyTrading.winRate')}</dt>
          <dd>
            <WinRate value={item.stats.winRate} />
          </dd>
        </div>
        <div>
          <dt>{t('copyTrading.profitUsdt')}</dt>
          <dd>
            <Profit value={item.stats.profit} />
          </dd>
        </div>
        <div>
          <dt>{t('copyTrading.contracts')}</dt>
          <dd className="num">{item.stats.contracts}</dd>
        </div>
        <div>
          <dt>{t('copyTrading.followers')}</dt>
          <dd className="num">{item.followers}</dd>
        </div>
      </dl>
    </li>
  );
}

/** `copying`: the UIDs of the traders the user copies, marked in the list. */
export function TopTraders({ copying }: { copying: ReadonlySet<number> }) {
  const { t, i18n } = useTranslation();
  const [params, setParams] = useSearchParams();
  const period = periodOf(params.get('period'));
  const { board, error, reload } = useTraderBoard(period);
  // Every sharing trader is ranked (up to 1 000): a phone shows them a page at a time.
  const [shown, setShown] = useState({ period, count: ROWS_SHOWN });
  const count = shown.period === period ? shown.count : ROWS_SHOWN;

  const choose = (next: Period) =>
    setParams(
      (current) => {
        const nextParams = new URLSearchParams(current);
        nextParams.set('period', next);
        return nextParams;
      },
      { replace: true },
    );

  return (
    <section className="card top-traders" aria-labelledby="top-traders-title">
      <h2 id="top-traders-title" className="section-title">
        {t('copyTrading.top')}
      </h2>
      <p className="muted small">{t('copyTrading.rankedBy')}</p>
      <Tabs className="tabs-pills" label={t('copyTrading.period')} value={period} onChange={choose} items={PERIODS.map((p) => ({ key: p, label: t(`copyTrading.periods.${p}`) }))} />
      {error && !board ? (
        <ErrorState text={error} onRetry={reload} />
      ) : !board ? (
        <SkeletonRows rows={5} columns={4} />
      ) : board.items.length === 0 ? (
        <EmptyState text={t('copyTrading.empty')} />
      ) : (
        <>
          <ol className="trader-list" aria-label={t('copyTrading.rankingOf', { period: t(`copyTrading.periods.${period}`) })}>
            {board.items.slice(0, count).map((item, i) => (
              <TraderRow key={item.uid} item={item} rank={i + 1} copying={copying.has(item.uid)} />
            ))}
          </ol>
          {board.items.length > count && (
            <button type="button" className="btn btn-secondary btn-block trader-more" onClick={() => setShown({ period, count: count + ROWS_SHOWN })}>
              {t('copyTrading.showMore')}
            </button>
          )}
        </>
      )}
      {board && (
        <p className="muted small trader-refreshed" data-testid="board-refreshed">
          {t('copyTrading.refreshed', { time: formatTime(board.refreshedAt, i18n.language) })}
        </p>
      )}
    </section>
  );
}
