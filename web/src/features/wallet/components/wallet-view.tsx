/**
 * The wallet view (spec §2, decisions §3): total, available, in position, frozen and the 24 h
 * change of the chosen account; the money actions; the five latest transactions and a link to
 * the full history. Balances move live from the websocket; the list is read again when they do.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';

import { EmptyState, ErrorState, SkeletonRows } from '@/components/states';
import { errorMessage } from '@/lib/api-client';
import { formatMoney, formatPercent } from '@/lib/format';
import { useWsEvent } from '@/lib/ws';
import { useWallet, walletOf } from '@/stores/wallet';

import { type Bill, walletApi } from '../api';
import { BillList } from './bill-list';
import { WalletActions } from './wallet-actions';

export const RECENT_BILLS = 5;
/** Balance frames are gathered for this long before the list is read again. */
const REFRESH_DEBOUNCE_MS = 300;

export function WalletView() {
  const { t, i18n } = useTranslation();
  const account = useWallet((s) => walletOf(s.account));
  const balance = useWallet((s) => s.balances[walletOf(s.account)]);
  const [bills, setBills] = useState<Bill[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const request = useRef(0);
  const debounce = useRef<ReturnType<typeof setTimeout> | null>(null);

  const load = useCallback(async () => {
    const id = ++request.current;
    setError(null);
    try {
      const answer = await walletApi.bills({ account, page: 1, pageSize: RECENT_BILLS });
      if (id === request.current) setBills(answer.items);
    } catch (e) {
      if (id === request.current) setError(errorMessage(e, 'errors.fetchRecords'));
    }
  }, [account]);

  useEffect(() => {
    setBills(null);
    void load();
  }, [load]);
  useEffect(() => () => void (debounce.current && clearTimeout(debounce.current)), []);
  useWsEvent('balance', () => {
    if (debounce.current) clearTimeout(debounce.current);
    debounce.current = setTimeout(() => void load(), REFRESH_DEBOUNCE_MS);
  });

  const money = (v: string | undefined) => (v === undefined ? '--' : formatMoney(v, i18n.language));
  const change = balance?.change24h ?? '0';
  return (
    <section className="wallet-view" aria-labelledby="wallet-title">
      <h1 id="wallet-title" className="page-title">
        {t('wallet.title')} <span className="muted small">{t(`header.${account}`)}</span>
      </h1>
      <div className="card wallet-summary">
        <span className="muted">{t('wallet.total')}</span>
        <div className="wallet-total num" data-testid="wallet-total">
          {money(balance?.total)} <small>USDT</small>
        </div>
        <dl className="account-figures">
          <div>
            <dt>{t('wallet.available')}</dt>
            <dd className="num" data-testid="wallet-available">
              {money(balance?.available)}
            </dd>
          </div>
          <div>
            <dt>{t('wallet.inPosition')}</dt>
            <dd className="num">{money(balance?.inPosition)}</dd>
          </div>
          <div>
            <dt>{t('wallet.frozen')}</dt>
            <dd className="num" data-testid="wallet-frozen">
              {money(balance?.frozen)}
            </dd>
          </div>
          <div>
            <dt>{t('wallet.change24h')}</dt>
            <dd className={`num ${change.startsWith('-') ? 'down' : 'up'}`}>
              <bdi dir="ltr">{balance ? `${formatMoney(change, i18n.language, true)} (${formatPercent(balance.change24hPercent, i18n.language)})` : '--'}</bdi>
            </dd>
          </div>
        </dl>
      </div>
      {account === 'real' && <WalletActions />}
      <div className="card">
        <div className="section-head">
          <h2 className="section-title">{t('wallet.recent')}</h2>
          <Link to="/account/history" className="link">
            {t('wallet.viewAll')}
          </Link>
        </div>
        {error ? (
          <ErrorState text={error} onRetry={() => void load()} />
        ) : !bills ? (
          <SkeletonRows rows={3} columns={3} />
        ) : bills.length === 0 ? (
          <EmptyState text={t('wallet.noTransactions')} />
        ) : (
          <BillList bills={bills} />
        )}
      </div>
    </section>
  );
}
