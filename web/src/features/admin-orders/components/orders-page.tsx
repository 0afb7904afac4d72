/**
 * Recharge or withdraw orders (decisions §4): filtered by state, a page at a time, newest
 * first; each with its user, amount, method and details, the receipt of a deposit, and the
 * actions its state allows to an admin who may act (approve, reject with a remark; for a
 * withdrawal being paid out, paid or failed). A handled order updates the list and the badges.
 */
import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';

import { Pager } from '@/components/pager';
import { EmptyState, ErrorState, SkeletonRows } from '@/components/states';
import { errorMessage } from '@/lib/api-client';
import { formatDateTime, formatMoney } from '@/lib/format';
import { adminCan, useAdminSession } from '@/stores/admin-session';
import { toast } from '@/stores/toast';

import { type AdminOrder, ORDERS_PAGE_SIZE, type OrderAction, type OrderStatus, actionsFor, fetchOrders } from '../api';
import type { PendingKind } from '../badges';
import { usePendingRefresh } from '../stores/refresh';
import { OrderActionDialog } from './order-action-dialog';
import { ReceiptDialog } from './receipt-dialog';

const STATUSES: Record<PendingKind, OrderStatus[]> = {
  recharge: ['pending', 'completed', 'rejected'],
  withdraw: ['pending', 'processing', 'completed', 'rejected', 'failed'],
};

const DETAIL_KEYS = ['accountName', 'accountNumber', 'bankName', 'chain', 'address'] as const;

/** One of an order's details, when it has it: the API leaves `details` untyped; the server writes strings. */
function orderDetail(order: AdminOrder, key: (typeof DETAIL_KEYS)[number]): string | undefined {
  const value = typeof order.details === 'object' && order.details !== null ? (order.details as Record<string, unknown>)[key] : undefined;
  return typeof value === 'string' ? value : undefined;
}

interface Listed {
  items: AdminOrder[];
  total: number;
}

function OrderCard({ kind, order, canAct, onAct, onReceipt }: { kind: PendingKind; order: AdminOrder; canAct: boolean; onAct(action: OrderAction): void; onReceipt(): void }) {
  const { t, i18n } = useTranslation();
  const lang = i18n.language;
  const actions = canAct ? actionsFor(kind, order.status) : [];
  return (
    <li className="admin-card admin-order">
      <div className="admin-order-head">
        <strong>{t('admin.orders.order', { id: order.id })}</strong>
        <span className={`admin-status admin-status-${order.status}`}>{t(`admin.orders.statuses.${order.status}`)}</span>
      </div>
      <dl className="admin-order-fields">
        <div>
          <dt>{t('admin.orders.user')}</dt>
          <dd className="num">{order.user}</dd>
        </div>
        <div>
          <dt>{t('admin.orders.amount')}</dt>
          <dd className="num">{formatMoney(order.amount, lang)} USDT</dd>
        </div>
        {kind === 'withdraw' && (
          <div>
            <dt>{t('admin.orders.actual')}</dt>
            <dd className="num">
              {formatMoney(order.actual, lang)} USDT ({t('admin.orders.fee')} {formatMoney(order.fee, lang)})
            </dd>
          </div>
        )}
        <div>
          <dt>{t('admin.orders.method')}</dt>
          <dd>{t(`admin.orders.methods.${order.method}`, { defaultValue: order.method })}</dd>
        </div>
        {DETAIL_KEYS.filter((key) => orderDetail(order, key)).map((key) => (
          <div key={key}>
            <dt>{t(`admin.orders.details.${key}`)}</dt>
            <dd className="admin-order-detail" dir="auto">
              {key === 'chain' ? orderDetail(order, key)?.toUpperCase() : orderDetail(order, key)}
            </dd>
          </div>
        ))}
        <div>
          <dt>{t('admin.orders.created')}</dt>
          <dd>{formatDateTime(order.createdAt, lang)}</dd>
        </div>
        {typeof order.completedAt === 'number' && (
          <div>
            <dt>{t('admin.orders.completed')}</dt>
            <dd>{formatDateTime(order.completedAt, lang)}</dd>
          </div>
        )}
        {order.remark && (
          <div>
            <dt>{t('admin.orders.remark')}</dt>
            <dd dir="auto">{order.remark}</dd>
          </div>
        )}
      </dl>
      {(order.receipt || actions.length > 0) && (
        <div className="admin-order-actions">
          {order.receipt && (
            <button type="button" className="btn btn-small btn-secondary" onClick={onReceipt}>
              {t('admin.orders.receipt')}
            </button>
          )}
          {actions.map((action) => (
            <button
              key={action}
              type="button"
              className={action === 'reject' || action === 'failed' ? 'btn btn-small btn-secondary' : 'btn btn-small btn-primary'}
              aria-label={t(`admin.orders.actionOn.${action}`, { id: order.id })}
              onClick={() => onAct(action)}
            >
              {t(`admin.orders.actions.${action}`)}
            </button>
          ))}
        </div>
      )}
    </li>
  );
}

export function OrdersPage({ kind }: { kind: PendingKind }) {
  const { t } = useTranslation();
  const canAct = useAdminSession((s) => adminCan(s.admin, 'orders:write'));
  const [status, setStatus] = useState<OrderStatus | null>('pending');
  const [page, setPage] = useState(1);
  const [listed, setListed] = useState<Listed | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [reload, setReload] = useState(0);
  const [acting, setActing] = useState<{ order: AdminOrder; action: OrderAction } | null>(null);
  const [receipt, setReceipt] = useState<AdminOrder | null>(null);

  useEffect(() => {
    const controller = new AbortController();
    setFailure(null);
    fetchOrders(kind, status, page, controller.signal)
      .then((answer) => setListed(answer))
      .catch((error: unknown) => {
        if (!controller.signal.aborted) setFailure(errorMessage(error));
      });
    return () => controller.abort();
  }, [kind, status, page, reload]);

  const again = useCallback(() => setReload((n) => n + 1), []);
  const choose = (next: OrderStatus | null) => {
    setStatus(next);
    setPage(1);
    setListed(null);
  };
  const done = () => {
    if (acting) toast.success(t('admin.orders.done', { id: acting.order.id }));
    setActing(null);
    usePendingRefresh.getState().orderHandled();
    again();
  };

  return (
    <div className="admin-page">
      <h1 className="page-title">{t(`admin.nav.${kind}`)}</h1>
      <label className="admin-select">
        <span className="field-label">{t('admin.orders.status')}</span>
        <select value={status ?? ''} onChange={(e) => choose((e.target.value || null) as OrderStatus | null)}>
          <option value="">{t('admin.orders.all')}</option>
          {STATUSES[kind].map((s) => (
            <option key={s} value={s}>
              {t(`admin.orders.statuses.${s}`)}
            </option>
          ))}
        </select>
      </label>
      {failure ? (
        <ErrorState text={failure} onRetry={again} />
      ) : !listed ? (
        <SkeletonRows rows={4} columns={3} />
      ) : listed.items.length === 0 ? (
        <EmptyState text={t('admin.orders.empty')} />
      ) : (
        <>
          <ul className="admin-orders">
            {listed.items.map((order) => (
              <OrderCard key={order.id} kind={kind} order={order} canAct={canAct} onAct={(action) => setActing({ order, action })} onReceipt={() => setReceipt(order)} />
            ))}
          </ul>
          <Pager page={page} total={listed.total} pageSize={ORDERS_PAGE_SIZE} onPage={setPage} />
        </>
      )}
      {acting && <OrderActionDialog kind={kind} order={acting.order} action={acting.action} onClose={() => setActing(null)} onDone={done} />}
      {receipt?.receipt && <ReceiptDialog orderId={receipt.id} name={receipt.receipt} onClose={() => setReceipt(null)} />}
    </div>
  );
}
