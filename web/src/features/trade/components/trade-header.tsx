/** The market's name, live price and 24 h high, low, change and volume. */
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

import { formatDecimal, formatPercent, formatVolume } from '@/lib/format';

import type { MarketItem } from '../api';
import type { TickData } from '../hooks/use-market-line';

export function TradeHeader({ line, tick, action }: { line: MarketItem; tick: TickData | null; action?: ReactNode }) {
  const { t, i18n } = useTranslation();
  const lang = i18n.language;
  const price = tick?.price ?? line.price;
  const up = !line.changePercent.startsWith('-');
  return (
    <section className="trade-header" aria-label={t('trade.summary')}>
      <div className="trade-title">
        <h1 className="ltr">{line.name}</h1>
        {!line.isOpen && <span className="pill">{t('markets.closed')}</span>}
        {line.isOpen && line.stale && <span className="pill">{t('markets.stale')}</span>}
        {line.simulated && (
          <span className="pill" title={t('markets.simulatedHint')}>
            {t('markets.simulated')}
          </span>
        )}
        {action}
      </div>
      <div className="trade-price">
        <span className={`num trade-last ${up ? 'up' : 'down'}`} data-testid="last-price" data-tick-time={tick?.time ?? ''} data-tick-index={tick?.index ?? ''}>
          {price ? formatDecimal(price, lang, line.precision) : '--'}
        </span>
        <span className={`num ${up ? 'up' : 'down'}`}>{formatPercent(line.changePercent, lang)}</span>
      </div>
      <dl className="trade-stats">
        <div>
          <dt>{t('trade.high24')}</dt>
          <dd className="num">{formatDecimal(line.high, lang, line.precision)}</dd>
        </div>
        <div>
          <dt>{t('trade.low24')}</dt>
          <dd className="num">{formatDecimal(line.low, lang, line.precision)}</dd>
        </div>
        <div>
          <dt>{t('trade.volume24')}</dt>
          <dd className="num">{formatVolume(line.volume, lang)}</dd>
        </div>
      </dl>
    </section>
  );
}
