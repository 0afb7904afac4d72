/**
 * The catalogue's products not listed yet: an admin who may change products adds one after a
 * confirmation that says what happens (it is shown to traders, priced and tradable at once).
 */
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';

import { Dialog } from '@/components/dialog';
import { FormError } from '@/components/form-error';
import { ErrorState, SkeletonRows } from '@/components/states';
import { errorMessage } from '@/lib/api-client';
import { useSubmit } from '@/lib/use-submit';
import { toast } from '@/stores/toast';

import { type CatalogueItem, addProduct, fetchCatalogue } from '../api';

export function CatalogueSection({ canAct, reload, onAdded }: { canAct: boolean; reload: number; onAdded(): void }) {
  const { t } = useTranslation();
  const [items, setItems] = useState<CatalogueItem[] | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [retry, setRetry] = useState(0);
  const [adding, setAdding] = useState<CatalogueItem | null>(null);
  const request = useSubmit();

  useEffect(() => {
    const controller = new AbortController();
    setFailure(null);
    fetchCatalogue(controller.signal)
      .then(setItems)
      .catch((e: unknown) => {
        if (!controller.signal.aborted) setFailure(errorMessage(e));
      });
    return () => controller.abort();
  }, [reload, retry]);

  const add = async () => {
    if (!adding) return;
    await request.run(async () => {
      await addProduct(adding.symbol);
      toast.success(t('admin.products.catalogue.added', { symbol: adding.symbol }));
      setAdding(null);
      onAdded();
    });
  };

  return (
    <section className="admin-catalogue" aria-labelledby="admin-catalogue-title">
      <h2 id="admin-catalogue-title" className="admin-card-title">
        {t('admin.products.catalogue.title')}
      </h2>
      <p className="muted">{t('admin.products.catalogue.about')}</p>
      {failure ? (
        <ErrorState text={failure} onRetry={() => setRetry((n) => n + 1)} />
      ) : !items ? (
        <SkeletonRows rows={2} columns={3} />
      ) : items.length === 0 ? (
        <p className="muted">{t('admin.products.catalogue.none')}</p>
      ) : (
        <ul className="admin-orders">
          {items.map((item) => (
            <li key={item.symbol} className="admin-card admin-order-head">
              <span>
                <strong dir="ltr">{item.symbol}</strong> <span dir="auto">{item.name}</span>{' '}
                <span className="muted">{t(`admin.products.categories.${item.category}`, { defaultValue: item.category })}</span>
              </span>
              {canAct && (
                <button type="button" className="btn btn-small btn-primary" aria-label={t('admin.products.catalogue.addOne', { symbol: item.symbol })} onClick={() => (request.setError(null), setAdding(item))}>
                  {t('admin.products.catalogue.add')}
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      {adding && (
        <Dialog open title={t('admin.products.catalogue.confirmTitle', { symbol: adding.symbol })} onClose={() => setAdding(null)}>
          <p>{t('admin.products.catalogue.confirmExplain', { name: adding.name })}</p>
          <FormError text={request.error} />
          <div className="admin-action-buttons">
            <button type="button" className="btn btn-secondary" onClick={() => setAdding(null)}>
              {t('app.cancel')}
            </button>
            <button type="button" className="btn btn-primary" disabled={request.busy} onClick={() => void add()}>
              {t('admin.products.catalogue.addNow')}
            </button>
          </div>
        </Dialog>
      )}
    </section>
  );
}
