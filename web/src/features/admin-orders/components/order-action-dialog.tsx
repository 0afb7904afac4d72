/**
 * Confirms an action on an order, saying what it does to the money; a rejection or a failed
 * payout needs a remark, which the user will read.
 */
import { type FormEvent, useId, useState } from 'react';
import { useTranslation } from 'react-i18next';

import { Dialog } from '@/components/dialog';
import { FormError } from '@/components/form-error';
import { formatMoney } from '@/lib/format';
import { useSubmit } from '@/lib/use-submit';

import { type AdminOrder, type OrderAction, REMARK_ACTIONS, actOnOrder } from '../api';
import type { PendingKind } from '../badges';

interface Props {
  kind: PendingKind;
  order: AdminOrder;
  action: OrderAction;
  onClose(): void;
  onDone(): void;
}

export function OrderActionDialog({ kind, order, action, onClose, onDone }: Props) {
  const { t, i18n } = useTranslation();
  const remarkId = useId();
  const needsRemark = REMARK_ACTIONS.has(action);
  const [remark, setRemark] = useState('');
  const [invalid, setInvalid] = useState(false);
  const request = useSubmit({ holdOnSuccess: true });

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (needsRemark && !remark.trim()) {
      setInvalid(true);
      return;
    }
    await request.run(async () => {
      await actOnOrder(kind, order.id, action, remark.trim());
      onDone();
    });
  };

  // A withdrawal freezes its whole amount (the fee included) until it is paid out or returned.
  const amount = formatMoney(order.amount, i18n.language);
  return (
    <Dialog open title={t(`admin.orders.confirm.${action}`, { id: order.id })} onClose={onClose}>
      <form onSubmit={(e) => void submit(e)} noValidate className="admin-action">
        <p>{t(`admin.orders.explain.${kind}.${action}`, { amount, uid: order.user })}</p>
        {needsRemark && (
          <div className="field">
            <label htmlFor={remarkId} className="field-label">
              {t('admin.orders.remark')}
            </label>
            <textarea
              id={remarkId}
              className="input admin-remark"
              value={remark}
              maxLength={500}
              rows={3}
              aria-invalid={invalid || undefined}
              aria-describedby={invalid ? `${remarkId}-error` : undefined}
              onChange={(e) => {
                setRemark(e.target.value);
                setInvalid(false);
              }}
            />
            {invalid && (
              <div id={`${remarkId}-error`} className="field-error" role="alert">
                {t('admin.orders.remarkRequired')}
              </div>
            )}
          </div>
        )}
        <FormError text={request.error} />
        <div className="admin-action-buttons">
          <button type="button" className="btn btn-secondary" onClick={onClose}>
            {t('app.cancel')}
          </button>
          <button type="submit" className={needsRemark ? 'btn btn-down' : 'btn btn-primary'} disabled={request.busy}>
            {t(`admin.orders.actions.${action}`)}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
