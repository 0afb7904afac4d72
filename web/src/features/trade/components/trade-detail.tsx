/**
 * The trade screen (spec §2): the market's header, its chart, the order panel and the user's
 * live contracts on it. Guests see everything; buying asks them to log in.
 */
import { type ReactNode, useMemo } from 'react';
import { useTranslation } from 'react-i18next';

import { ErrorState, Spinner } from '@/components/states';
import { formatMoney } from '@/lib/format';

import { useContractFeed } from '../hooks/use-contract-feed';
import { useMarketItem } from '../hooks/use-market-line';
import { useStickyBlockEnd } from '../hooks/use-sticky-block-end';
import { useContracts } from '../stores/contracts';
import type { ChartContract } from '../chart/chart-controller';
import { LiveContracts } from './live-contracts';
import { OrderPanel } from './order-panel';
import { PriceChart } from './price-chart';
import { TradeHeader } from './trade-header';

/** What the trade page shows beside the market's name, composed by the route (price alerts). */
export type HeaderAction = (market: { symbol: string; name: string; precision: number; price: string | null }) => ReactNode;

export function TradeDetail({ symbol, headerAction }: { symbol: string; headerAction?: HeaderAction }) {
  const { t, i18n } = useTranslation();
  const { line, tick, error, retry } = useMarketItem(symbol);
  useContractFeed();
  const side = useStickyBlockEnd();
  const byId = useContracts((s) => s.byId);
  const chartContracts = useMemo<ChartContract[]>(
    () =>
      Object.values(byId)
        .filter((c) => c.symbol === symbol && c.status === 'open' && c.entryPrice && c.entryTime)
        .map((c) => ({
          id: c.id,
          // The chart draws anything but `up` as down.
          direction: c.direction === 'up' ? 'up' : 'down',
          entryPrice: Number(c.entryPrice),
          entryTime: c.entryTime!,
          label: `${t(`trade.confirm.${c.direction}`)} ${formatMoney(c.amount, i18n.language)}`,
        })),
    [byId, symbol, t, i18n.language],
  );

  if (error && !line) {
    return <ErrorState text={error.notFound ? t('trade.noProduct') : error.message} onRetry={error.notFound ? undefined : () => void retry()} />;
  }
  if (!line) return <Spinner />;
  const price = tick?.price ?? (line.price || null);
  return (
    <div className="trade-layout">
      <div className="trade-main">
        <TradeHeader line={line} tick={tick} action={headerAction?.({ symbol, name: line.name, precision: line.precision, price })} />
        <PriceChart symbol={symbol} precision={line.precision} contracts={chartContracts} />
        <LiveContracts symbol={symbol} price={price} precision={line.precision} />
      </div>
      <aside className="trade-side" ref={side}>
        <OrderPanel symbol={symbol} marketOpen={line.isOpen} hasPrice={price !== null} />
      </aside>
    </div>
  );
}
