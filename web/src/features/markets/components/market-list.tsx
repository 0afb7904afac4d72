/**
 * The market list (spec §2): tabs Cryptocurrency and Forex, search, and for each product its
 * name, price (flashing up or down as it moves), 24 h change, high, low and volume (B, M, K).
 * A closed forex market is marked closed; a silent feed is marked delayed.
 */
import { memo, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router';

import { SearchIcon } from '@/components/icons';
import { EmptyState, ErrorState, SkeletonRows } from '@/components/states';
import { Tabs } from '@/components/tabs';
import { compare } from '@/lib/decimal';
import { formatDecimal, formatPercent, formatVolume, isDecimal } from '@/lib/format';

import type { MarketItem } from '../api';
import { useMarkets } from '../hooks/use-markets';

type Category = MarketItem['category'];

/**
 * The direction of the price's last move: the price is drawn in that colour until it moves
 * again, and each move restarts a short flash (an animation keyed on the move's number).
 */
function usePriceMove(price: string): { direction: 'up' | 'down' | null; move: number } {
  const previous = useRef(price);
  const [state, setState] = useState<{ direction: 'up' | 'down' | null; move: number }>({ direction: null, move: 0 });
  useEffect(() => {
    const before = previous.current;
    previous.current = price;
    if (!isDecimal(before) || !isDecimal(price) || before === price) return;
    const direction = compare(price, before) > 0 ? 'up' : 'down';
    setState((s) => ({ direction, move: s.move + 1 }));
  }, [price]);
  return state;
}

const MarketRow = memo(function MarketRow({ item, language }: { item: MarketItem; language: string }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const { direction: moved, move } = usePriceMove(item.price);
  const direction = item.changePercent.startsWith('-') ? 'down' : /[1-9]/.test(item.changePercent) ? 'up' : '';
  const price = item.price ? formatDecimal(item.price, language, item.precision) : '--';
  return (
    <tr className="market-row" onClick={() => navigate(`/trade/${item.symbol}`)}>
      <th scope="row" className="market-name">
        <Link to={`/trade/${item.symbol}`} onClick={(e) => e.stopPropagation()} aria-label={t('markets.open', { name: item.name })}>
          <span className="market-symbol ltr">{item.name}</span>
        </Link>
        <span className="market-sub muted">
          <span className="num">{formatVolume(item.volume, language)}</span>
          {!item.isOpen && <span className="pill">{t('markets.closed')}</span>}
          {item.isOpen && item.stale && <span className="pill">{t('markets.stale')}</span>}
        </span>
      </th>
      <td className={`num market-price ${moved ?? ''}`} data-testid={`price-${item.symbol}`}>
        <span key={move} className={moved ? `flash-${moved}` : undefined}>
          {price}
        </span>
      </td>
      <td className="market-change">
        <span className={`change-pill num ${direction}`}>{formatPercent(item.changePercent, language)}</span>
      </td>
      <td className="num market-wide">{formatDecimal(item.high, language, item.precision)}</td>
      <td className="num market-wide">{formatDecimal(item.low, language, item.precision)}</td>
      <td className="num market-wide">{formatVolume(item.volume, language)}</td>
    </tr>
  );
});

export function MarketList() {
  const { t, i18n } = useTranslation();
  const { items, loading, error, retry } = useMarkets();
  const [category, setCategory] = useState<Category>('crypto');
  const [query, setQuery] = useState('');
  const needle = query.trim().toUpperCase().replace('/', '');
  const shown = items.filter(
    (item) => item.category === category && (!needle || item.symbol.includes(needle) || item.name.toUpperCase().includes(needle)),
  );

  return (
    <section className="markets" aria-labelledby="markets-title">
      <div className="markets-top">
        <h1 id="markets-title" className="page-title">
          {t('markets.title')}
        </h1>
        <label className="search">
          <SearchIcon />
          <input type="search" className="input" placeholder={t('markets.search')} aria-label={t('markets.search')} value={query} onChange={(e) => setQuery(e.target.value)} />
        </label>
      </div>
      <Tabs<Category>
        label={t('markets.categories')}
        value={category}
        onChange={setCategory}
        items={[
          { key: 'crypto', label: t('markets.crypto') },
          { key: 'forex', label: t('markets.forex') },
        ]}
      />
      {loading ? (
        <SkeletonRows rows={10} columns={3} />
      ) : error ? (
        <ErrorState text={error} onRetry={() => void retry()} />
      ) : shown.length === 0 ? (
        <EmptyState text={t('markets.empty')} />
      ) : (
        <table className="market-table">
          <thead>
            <tr>
              <th scope="col">{t('markets.name')}</th>
              <th scope="col">{t('markets.price')}</th>
              <th scope="col">{t('markets.change')}</th>
              <th scope="col" className="market-wide">
                {t('markets.high')}
              </th>
              <th scope="col" className="market-wide">
                {t('markets.low')}
              </th>
              <th scope="col" className="market-wide">
                {t('markets.volume')}
              </th>
            </tr>
          </thead>
          <tbody>
            {shown.map((item) => (
              <MarketRow key={item.symbol} item={item} language={i18n.language} />
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
