/**
 * The bill modal (spec §2 and §4): deposit and withdrawal records with their status, time,
 * completed time and remark. A withdrawal approved by an admin is `processing` until it is
 * paid out (`completed`) or fails (`failed`, the money returned). Kept current by the private
 * stream: a decision arrives as a notification and the list is read again.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';

import { Dialog } from '@/components/dialog';
import { Pager } from '@/components/pager';
import { EmptyState, ErrorState, SkeletonRows } from '@/components/states';
import { Tabs } from '@/components/tabs';
import { type Page, errorMessage } from '@/lib/api-client';
import { formatDateTime, formatMoney } from '@/lib/format';
import { useWsEvent } from '@/lib/ws';

import { type MoneyOrder, walletApi } from '../api';

const PAGE_SIZE = 10;
type Kind = 'deposit' | 'withdraw';

export function OrderStatusPill({ status }: { status: MoneyOrder['status'] }) {
  const { t } = useTranslation();
  return <span className={`pill status-${status}`}>{t(`wallet.status.${status}`)}</span>;
}

function OrderItem({ order }: { order: MoneyOrder }) {
  const { t, i18n } = useTranslation();
  const lang = i18n.language;
  return (
    <li className="order-row" data-testid={`order-${order.id}`}>
      <div className="order-top">
        <strong className="num">{formatMoney(order.amount, lang)} USDT</strong>
        <OrderStatusPill status={order.status} />
      </div>
      <dl className="order-facts">
        <div>
          <dt>{t('wallet.bill.order')}</dt>
          <dd className="num">#{order.id}</dd>
        </div>
        <div>
          <dt>{t('wallet.bill.method')}</dt>
          <dd>{t(`wallet.method.${order.method}`, { defaultValue: order.method })}</dd>
        </div>
        {order.kind === 'withdraw' && (
          <>
            <div>
              <dt>{t('wallet.withdraw.fee')}</dt>
              <dd className="num">{formatMoney(order.fee, lang)}</dd>
            </div>
            <div>
              <dt>{t('wallet.withdraw.actual')}</dt>
              <dd className="num">{formatMoney(order.actual, lang)}</dd>
            </div>
          </>
        )}
        <div>
          <dt>{t('wallet.bill.time')}</dt>
          <dd>{formatDateTime(order.createdAt, lang)}</dd>
        </div>
        <div>
          <dt>{t('wallet.bill.completed')}</dt>
          <dd>{order.completedAt ? formatDateTime(order.completedAt, lang) : '--'}</dd>
        </div>
        {order.remark && (
          <div className="order-remark">
            <dt>{t('wallet.bill.remark')}</dt>
            <dd>{order.remark}</dd>
          </div>
        )}
      </dl>
    </li>
  );
}

export function BillDialog({ open, onClose, initial = 'deposit' }: { open: boolean; onClose(): void; initial?: Kind }) {
  const { t } = useTranslation();
  const [kind, setKind] = useState<Kind>(initial);
  const [page, setPage] = useState(1);
  const [data, setData] = useState<Page<MoneyOrder> | null>(null);
  const [error, setError] = useState<string | null>(null);
  const request = useRef(0);

  const load = useCallback(async () => {
    const id = ++request.current;
    setError(null);
    try {
      const answer = await walletApi.orders(kind, page, PAGE_SIZE);
      if (id === request.current) setData(answer);
    } catch (e) {
      if (id === request.current) setError(errorMessage(e, 'errors.fetchRecords'));
    }
  }, [kind, page]);

  useEffect(() => {
    if (open) setKind(initial);
  }, [open, initial]);
  useEffect(() => {
    if (!open) return;
    setData(null);
    void load();
  }, [open, load]);
  useWsEvent('notification', () => open && void load());
  useWsEvent('balance', () => open && void load());
  return (
    <Dialog open={open} title={t('wallet.bill.title')} onClose={onClose} className="dialog-form">
      <Tabs
        label={t('wallet.bill.title')}
        value={kind}
        onChange={(k) => {
          setKind(k);
          setPage(1);
        }}
        items={[
          { key: 'deposit', label: t('wallet.bill.deposits') },
          { key: 'withdraw', label: t('wallet.bill.withdrawals') },
        ]}
      />
      {error ? (
        <ErrorState text={error} onRetry={() => void load()} />
      ) : !data ? (
        <SkeletonRows rows={3} columns={2} />
      ) : data.items.length === 0 ? (
        <EmptyState text={t(kind === 'deposit' ? 'wallet.bill.noDeposits' : 'wallet.bill.noWithdrawals')} />
      ) : (
        <ul className="order-list">
          {data.items.map((o) => (
            <OrderItem key={o.id} order={o} />
          ))}
        </ul>
      )}
      {data && <Pager page={page} total={data.total} pageSize={PAGE_SIZE} onPage={setPage} />}
    </Dialog>
  );
}
