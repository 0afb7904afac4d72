/** A deposit's receipt image, fetched with the admin token and shown at full width. */
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';

import { Dialog } from '@/components/dialog';
import { ErrorState, Spinner } from '@/components/states';

import { fetchReceipt } from '../api';

export function ReceiptDialog({ orderId, name, onClose }: { orderId: number; name: string; onClose(): void }) {
  const { t } = useTranslation();
  const [url, setUrl] = useState<string | null>(null);
  const [failed, setFailed] = useState(false);

  useEffect(() => {
    const controller = new AbortController();
    let made: string | null = null;
    fetchReceipt(name, controller.signal)
      .then((objectUrl) => {
        made = objectUrl;
        setUrl(objectUrl);
      })
      .catch(() => {
        if (!controller.signal.aborted) setFailed(true);
      });
    return () => {
      controller.abort();
      if (made) URL.revokeObjectURL(made);
    };
  }, [name]);

  const title = t('admin.orders.receiptTitle', { id: orderId });
  return (
    <Dialog open title={title} onClose={onClose} className="admin-receipt-dialog">
      {failed ? <ErrorState text={t('admin.orders.receiptFailed')} /> : url ? <img className="admin-receipt" src={url} alt={title} /> : <Spinner />}
    </Dialog>
  );
}
