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
import { formatDecimal, formatPercent, formatVolume } from '@/lib/format';

import type { MarketItem } from '../api';
import { useMarkets } from '../hooks/use-markets';

type Category = MarketItem['category'];

/** How long a price stays highlighted after it moves. */
export const FLASH_MS = 700;

function usePriceFlash(price: string): 'up' | 'down' | null {
  const previous = useRef(price);
  const [flash, setFlash] = useState<{ dir: 'up' | 'down'; n: number } | null>(null);
  useEffect(() => {
    const before = Number(previous.current);
    const now = Number(price);
    previous.current = price;
    if (!Number.isFinite(before) || !Number.isFinite(now) || before === now) return undefined;
    setFlash((f) => ({ dir: now > before ? 'up' : 'down', n: (f?.n ?? 0) + 1 }));
    const timer = setTimeout(() => setFlash(null), FLASH_MS);
    return () => clearTimeout(timer);
  }, [price]);
  return flash?.dir ?? null;
}

const MarketRow = memo(function MarketRow({ item, language }: { item: MarketItem; language: string }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const flash = usePriceFlash(item.price);
  const direction = item.changePercent.startsWith('-') ? 'down' : Number(item.changePercent) > 0 ? 'up' : '';
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
      <td className={`num market-price ${flash ? `flash-${flash}` : ''}`} data-testid={`price-${item.symbol}`}>
        {price}
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
