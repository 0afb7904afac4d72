/**
 * The trade page's "Price alert" button: a dialog to set an alert on this product at a price
 * and to see or remove its waiting ones. A guest is sent to sign in first.
 */
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';

import { Dialog } from '@/components/dialog';
import { BellIcon } from '@/components/icons';
import { ErrorState } from '@/components/states';
import { errorMessage } from '@/lib/api-client';
import { useWsEvent } from '@/lib/ws';
import type { PriceAlertFrame } from '@/lib/ws-frames';
import { useSession } from '@/stores/session';

import { useAlerts } from '../stores/alerts';
import { AlertForm } from './alert-form';
import { AlertList } from './alert-list';

interface PriceAlertButtonProps {
  symbol: string;
  name: string;
  precision: number;
  price: string | null;
}

export function PriceAlertButton({ symbol, name, precision, price }: PriceAlertButtonProps) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const signedIn = useSession((s) => s.token !== null);
  const [open, setOpen] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const fired = useAlerts((s) => s.fired);
  useWsEvent<PriceAlertFrame>('priceAlert', ({ data }) => fired(data.id));

  const load = () => {
    setError(null);
    useAlerts.getState().load().catch((e: unknown) => setError(errorMessage(e)));
  };
  useEffect(() => {
    if (open) load();
  }, [open]);

  return (
    <>
      <button type="button" className="btn btn-small btn-secondary alert-button" aria-haspopup="dialog" onClick={() => (signedIn ? setOpen(true) : void navigate('/login'))}>
        <BellIcon aria-hidden="true" width={16} height={16} />
        {t('alerts.button')}
      </button>
      <Dialog open={open} title={t('alerts.titleFor', { name })} onClose={() => setOpen(false)}>
        <AlertForm symbol={symbol} precision={precision} price={price} />
        {error ? <ErrorState text={error} onRetry={load} /> : <AlertList symbol={symbol} precision={() => precision} />}
      </Dialog>
    </>
  );
}
