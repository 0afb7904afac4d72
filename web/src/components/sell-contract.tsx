/**
 * Early close (decisions §11), for every screen that lists open contracts: the contract's live
 * offer as a "Sell 8.78" button (or why there is none), and the confirm step that sells it at
 * the offer shown. The sale is sent once per click on Confirm: a changed offer (`OFFER_CHANGED`)
 * is shown in the dialog and waits for another confirmation, a lost connection is never
 * retried (the caller reads the contract again), and every other refusal shows the server's
 * message.
 */
import { useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';

import { ApiError, errorMessage } from '@/lib/api-client';
import { formatMoney } from '@/lib/format';
import { NO_OFFER_REASON, type SaleOffer, dataText, saleApi } from '@/lib/sale';
import { toast } from '@/stores/toast';

import { type DetailRow, DetailList } from './detail-list';
import { Dialog } from './dialog';
import { FormError } from './form-error';

type Translate = (key: string, options?: Record<string, unknown>) => string;

/** Why a contract has no offer, in words. */
export function noOfferText(reason: string | null, t: Translate): string {
  return t(`sale.reason.${reason ?? NO_OFFER_REASON}`, { defaultValue: t(`sale.reason.${NO_OFFER_REASON}`) });
}

interface SellActionProps {
  contractId: number;
  /** The latest offer (or its reason); nothing is shown until one is known. */
  offer: SaleOffer | undefined;
  /** The sale may have reached the server but its answer was lost: read the contract again. */
  onLost?(): void;
}

/** The sell button with the live offer, or the reason there is none; it opens the confirm step. */
export function SellAction({ contractId, offer, onLost }: SellActionProps) {
  const { t, i18n } = useTranslation();
  // The offer as it was when the button was pressed: the dialog confirms that one.
  const [confirming, setConfirming] = useState<string | null>(null);
  const amount = offer?.offer ? formatMoney(offer.offer, i18n.language) : null;
  // The dialog stays while it is open, whatever the offers do meanwhile (a reconnect forgets them).
  if (!offer && confirming === null) return null;
  return (
    <div className="sale-action">
      {offer?.offer ? (
        <button
          type="button"
          className="btn btn-small btn-sell"
          aria-label={t('sale.sellLabel', { id: contractId, amount })}
          onClick={() => setConfirming(offer.offer)}
        >
          {t('sale.sell', { amount })}
        </button>
      ) : (
        offer && <span className="sale-reason muted">{noOfferText(offer.reason, t)}</span>
      )}
      {confirming !== null && <SellDialog contractId={contractId} offer={confirming} onClose={() => setConfirming(null)} onLost={onLost} />}
    </div>
  );
}

interface SellDialogProps {
  contractId: number;
  /** The offer the trader saw (USDT): confirming sends this one. */
  offer: string;
  onClose(): void;
  onLost?(): void;
}

/** The confirm step: what the trader will receive, then one sale per click on Confirm. */
export function SellDialog({ contractId, offer: seen, onClose, onLost }: SellDialogProps) {
  const { t, i18n } = useTranslation();
  const [offer, setOffer] = useState(seen);
  const [changed, setChanged] = useState(false);
  const [error, setError] = useState<string | null>(null);
  // After a refusal other than a changed offer, the offer shown is no longer one to confirm.
  const [closed, setClosed] = useState(false);
  const [sending, setSending] = useState(false);
  // The guard itself: state would let two clicks of one event both through.
  const out = useRef(false);
  const money = (value: string) => formatMoney(value, i18n.language);

  const confirm = async () => {
    if (out.current || closed) return;
    out.current = true;
    setSending(true);
    setError(null);
    setChanged(false);
    try {
      const sold = await saleApi.sell(contractId, offer);
      toast.success(t('sale.sold', { amount: money(sold.credited) }));
      onClose();
    } catch (failure) {
      const code = failure instanceof ApiError ? failure.code : null;
      const next = failure instanceof ApiError && code === 'OFFER_CHANGED' ? dataText(failure, 'offer') : null;
      if (next !== null) {
        // Nothing was sold: the new offer waits for the trader's own confirmation.
        setOffer(next);
        setChanged(true);
      } else if (code === 'NETWORK' || code === 'TIMEOUT') {
        // The sale may have reached the server: look, never send it again.
        setError(t('sale.lost'));
        setClosed(true);
        onLost?.();
      } else {
        setError(errorMessage(failure, 'sale.failed'));
        setClosed(true);
      }
    } finally {
      out.current = false;
      setSending(false);
    }
  };

  const rows: DetailRow[] = [
    { label: t('sale.contract'), value: `#${contractId}` },
    { label: t('sale.receive'), value: `${money(offer)} USDT` },
  ];
  return (
    <Dialog open title={t('sale.title')} onClose={onClose}>
      <DetailList rows={rows} testId="sale-terms" />
      {changed && (
        <p className="notice notice-warning" role="alert">
          {t('sale.changed', { amount: money(offer) })}
        </p>
      )}
      <FormError text={error} />
      <p className="muted sale-note">{t('sale.note')}</p>
      <details className="sale-formula">
        <summary>{t('sale.formulaTitle')}</summary>
        <p className="muted">{t('sale.formula')}</p>
      </details>
      <div className="dialog-actions">
        <button type="button" className="btn btn-secondary" onClick={onClose} disabled={sending}>
          {t('app.cancel')}
        </button>
        {!closed && (
          <button type="button" className="btn btn-primary" onClick={() => void confirm()} disabled={sending}>
            {sending ? t('sale.selling') : t('sale.confirm', { amount: money(offer) })}
          </button>
        )}
      </div>
    </Dialog>
  );
}
