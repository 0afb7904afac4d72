/**
 * `/account/price-alerts`: set an alert on any product, the waiting ones with remove, and the
 * alerts that fired (newest first, paged), each with the tick that reached it.
 */
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';

import { Pager } from '@/components/pager';
import { EmptyState, ErrorState, Spinner } from '@/components/states';
import { type Page, errorMessage } from '@/lib/api-client';
import { formatDateTime, formatDecimal } from '@/lib/format';
import { useWsEvent } from '@/lib/ws';
import type { PriceAlertFrame } from '@/lib/ws-frames';
import type { MarketItem } from '@/types/api';

import { type PriceAlert, alertsApi } from '../api';
import { useAlerts } from '../stores/alerts';
import { AlertForm } from './alert-form';
import { AlertList } from './alert-list';

const FIRED_PAGE_SIZE = 10;

export function PriceAlertsPanel() {
  const { t, i18n } = useTranslation();
  const [markets, setMarkets] = useState<MarketItem[] | null>(null);
  const [symbol, setSymbol] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [fired, setFired] = useState<Page<PriceAlert> | null>(null);
  const [page, setPage] = useState(1);
  const [firedError, setFiredError] = useState<string | null>(null);
  const [firedVersion, setFiredVersion] = useState(0);
  const loaded = useAlerts((s) => s.loaded);

  const load = () => {
    setError(null);
    Promise.all([alertsApi.markets(), useAlerts.getState().load()])
      .then(([list]) => {
        setMarkets(list);
        setSymbol((s) => s || list[0]?.symbol || '');
      })
      .catch((e: unknown) => setError(errorMessage(e)));
  };
  useEffect(load, []);

  useEffect(() => {
    let stale = false;
    setFiredError(null);
    alertsApi
      .fired(page, FIRED_PAGE_SIZE)
      .then((p) => !stale && setFired(p))
      .catch((e: unknown) => !stale && setFiredError(errorMessage(e)));
    return () => {
      stale = true;
    };
  }, [page, firedVersion]);

  // One fired while the page is open: out of the waiting list, into the fired one.
  useWsEvent<PriceAlertFrame>('priceAlert', ({ data }) => {
    useAlerts.getState().fired(data.id);
    setFiredVersion((v) => v + 1);
  });

  if (error && !markets) return <ErrorState text={error} onRetry={load} />;
  if (!markets || !loaded) return <Spinner />;
  const market = markets.find((m) => m.symbol === symbol);
  const precisionOf = (code: string) => markets.find((m) => m.symbol === code)?.precision ?? 2;

  return (
    <div className="stack">
      <section className="card" aria-labelledby="alerts-title">
        <h1 id="alerts-title" className="page-title">
          {t('alerts.pageTitle')}
        </h1>
        <p className="muted">{t('alerts.intro')}</p>
        <div className="field">
          <label htmlFor="alert-product" className="field-label">
            {t('alerts.product')}
          </label>
          <select id="alert-product" className="input" value={symbol} onChange={(e) => setSymbol(e.target.value)}>
            {markets.map((m) => (
              <option key={m.symbol} value={m.symbol}>
                {m.name}
              </option>
            ))}
          </select>
        </div>
        {market && <AlertForm key={market.symbol} symbol={market.symbol} precision={market.precision} price={market.price || null} />}
      </section>
      <section className="card">
        <AlertList precision={precisionOf} />
      </section>
      <section className="card" aria-labelledby="alerts-fired-title">
        <h2 id="alerts-fired-title" className="section-title">
          {t('alerts.fired')}
        </h2>
        {firedError ? (
          <ErrorState text={firedError} onRetry={() => setFiredVersion((v) => v + 1)} />
        ) : !fired ? (
          <Spinner />
        ) : fired.items.length === 0 ? (
          <EmptyState text={t('alerts.noneFired')} />
        ) : (
          <ul className="plain-list">
            {fired.items.map((a) => {
              const digits = precisionOf(a.symbol);
              return (
                <li key={a.id} className="alert-row">
                  <div>
                    <div>
                      {t(`alerts.reached.${a.direction}`, {
                        symbol: a.symbol,
                        price: formatDecimal(a.firedPrice ?? a.price, i18n.language, digits),
                        level: formatDecimal(a.price, i18n.language, digits),
                      })}
                    </div>
                    <div className="muted small">{formatDateTime(a.firedAt, i18n.language)}</div>
                  </div>
                </li>
              );
            })}
          </ul>
        )}
        {fired && <Pager page={page} total={fired.total} pageSize={FIRED_PAGE_SIZE} onPage={setPage} />}
      </section>
    </div>
  );
}
