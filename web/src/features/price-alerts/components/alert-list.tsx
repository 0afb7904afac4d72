/** The waiting alerts (of one product, or all), each with its remove button. */
import { useState } from 'react';
import { useTranslation } from 'react-i18next';

import { TrashIcon } from '@/components/icons';
import { errorMessage } from '@/lib/api-client';
import { formatDateTime, formatDecimal } from '@/lib/format';
import { toast } from '@/stores/toast';

import { useAlerts } from '../stores/alerts';

interface AlertListProps {
  /** Only this product's alerts; all when absent. */
  symbol?: string;
  /** Price decimals per product. */
  precision(symbol: string): number;
}

export function AlertList({ symbol, precision }: AlertListProps) {
  const { t, i18n } = useTranslation();
  const { waiting, max, cancel } = useAlerts();
  const [busy, setBusy] = useState<number | null>(null);
  const shown = symbol ? waiting.filter((a) => a.symbol === symbol) : waiting;

  const remove = async (id: number) => {
    setBusy(id);
    try {
      await cancel(id);
      toast.success(t('alerts.removed'));
    } catch (e) {
      toast.error(errorMessage(e));
    } finally {
      setBusy(null);
    }
  };

  return (
    <section className="alert-list" aria-label={t('alerts.waiting')}>
      <h2 className="section-title">
        {t('alerts.waiting')} <span className="muted small">{t('alerts.count', { count: waiting.length, max })}</span>
      </h2>
      {shown.length === 0 ? (
        <p className="muted">{t('alerts.none')}</p>
      ) : (
        <ul className="plain-list">
          {shown.map((a) => {
            const price = formatDecimal(a.price, i18n.language, precision(a.symbol));
            return (
              <li key={a.id} className="alert-row">
                <div>
                  <div>
                    <span className="ltr">{a.symbol}</span> · {t(`alerts.direction.${a.direction}`)} <span className={`num ltr ${a.direction === 'above' ? 'up' : 'down'}`}>{price}</span>
                  </div>
                  <div className="muted small">{t('alerts.setAt', { time: formatDateTime(a.createdAt, i18n.language) })}</div>
                </div>
                <button type="button" className="icon-button" aria-label={t('alerts.remove', { symbol: a.symbol, price })} disabled={busy === a.id} onClick={() => void remove(a.id)}>
                  <TrashIcon aria-hidden="true" />
                </button>
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}
