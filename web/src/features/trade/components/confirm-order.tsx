/**
 * The confirm step before an order (decisions §2): what is bought, and how it settles
 * (entry = the next tick, exit = the last tick at or before expiry, a tie refunds, the void
 * cases, and selling back before expiry), with the payout rate and the fee, before anything is
 * sent.
 */
import { useTranslation } from 'react-i18next';

import { type DetailRow, DetailList } from '@/components/detail-list';
import { Dialog } from '@/components/dialog';
import { multiply, winCredit } from '@/lib/decimal';
import { formatDuration, formatMoney, formatRate } from '@/lib/format';
import type { AccountKind } from '@/stores/wallet';

import type { OrderDraft } from './order-panel';

interface ConfirmOrderProps {
  draft: OrderDraft;
  symbol: string;
  account: AccountKind;
  sending: boolean;
  onCancel(): void;
  onConfirm(): void;
}

export function ConfirmOrder({ draft, symbol, account, sending, onCancel, onConfirm }: ConfirmOrderProps) {
  const { t, i18n } = useTranslation();
  const fee = multiply(draft.amount, draft.rule.feeRate);
  const rows: DetailRow[] = [
    { label: t('trade.confirm.market'), value: symbol },
    { label: t('trade.confirm.direction'), value: t(`trade.confirm.${draft.direction}`), tone: draft.direction, text: true },
    { label: t('trade.confirm.account'), value: t(`header.${account}`), text: true },
    { label: t('trade.confirm.amount'), value: `${formatMoney(draft.amount, i18n.language)} USDT` },
    { label: t('trade.confirm.duration'), value: formatDuration(draft.rule.duration, t), text: true },
    { label: t('trade.confirm.payoutRate'), value: formatRate(draft.rule.payoutRate, i18n.language) },
    { label: t('trade.confirm.fee'), value: `${formatMoney(fee, i18n.language)} USDT` },
    { label: t('trade.confirm.expectedReturn'), value: `${formatMoney(winCredit(draft.amount, draft.rule.payoutRate), i18n.language)} USDT` },
  ];
  return (
    <Dialog open title={t('trade.confirm.title')} onClose={onCancel}>
      <DetailList rows={rows} />
      <h3 className="confirm-rules-title">{t('trade.confirm.rulesTitle')}</h3>
      <ul className="confirm-rules">
        <li>{t('trade.confirm.ruleEntry')}</li>
        <li>{t('trade.confirm.ruleExit')}</li>
        <li>{t('trade.confirm.ruleWin')}</li>
        <li>{t('trade.confirm.ruleTie')}</li>
        <li>{t('trade.confirm.ruleVoid')}</li>
        <li>{t('trade.confirm.ruleSale')}</li>
      </ul>
      <div className="dialog-actions">
        <button type="button" className="btn btn-secondary" onClick={onCancel} disabled={sending}>
          {t('app.cancel')}
        </button>
        <button type="button" className={draft.direction === 'up' ? 'btn btn-up' : 'btn btn-down'} onClick={onConfirm} disabled={sending}>
          {sending ? t('trade.confirm.submitting') : t('trade.confirm.submit')}
        </button>
      </div>
    </Dialog>
  );
}
