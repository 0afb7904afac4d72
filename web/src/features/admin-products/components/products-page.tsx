/**
 * Products: every product with its display name, category, precision, market hours and price
 * source (simulated, a replayed file or a live exchange);
 * enabling or disabling one (a disabled product takes no new orders; running contracts settle
 * by their rule) and renaming it, for admins who may act on products; and the catalogue's
 * products not listed yet, to add.
 */
import { type FormEvent, useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';

import { Dialog } from '@/components/dialog';
import { Field } from '@/components/field';
import { FormError } from '@/components/form-error';
import { EmptyState, ErrorState, SkeletonRows } from '@/components/states';
import { errorMessage } from '@/lib/api-client';
import { useSubmit } from '@/lib/use-submit';
import { adminCan, useAdminSession } from '@/stores/admin-session';
import { toast } from '@/stores/toast';

import { PRODUCT_NAME_MAX, type Product, fetchProducts, readSource, updateProduct } from '../api';
import { CatalogueSection } from './catalogue-section';

/** The price source: translated kind, and the file or host as the server names it. */
function Source({ source }: { source: string }) {
  const { t } = useTranslation();
  const { kind, detail } = readSource(source);
  if (kind === 'simulated' || kind === 'none') return <span className={kind === 'none' ? 'muted' : undefined}>{t(`admin.products.sources.${kind}`)}</span>;
  return (
    <span>
      {t(`admin.products.sources.${kind}`)} <bdi dir="ltr">{detail}</bdi>
    </span>
  );
}

function ProductDialog({ product, onClose, onSaved }: { product: Product; onClose(): void; onSaved(): void }) {
  const { t } = useTranslation();
  const [name, setName] = useState(product.name);
  const [enabled, setEnabled] = useState(product.enabled);
  const [error, setError] = useState<string | undefined>();
  const request = useSubmit({ holdOnSuccess: true });
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!name.trim()) {
      setError(t('admin.products.nameRequired'));
      return;
    }
    await request.run(async () => {
      await updateProduct(product.symbol, name.trim(), enabled);
      onSaved();
    });
  };
  return (
    <Dialog open title={t('admin.products.editTitle', { symbol: product.symbol })} onClose={onClose}>
      <form className="admin-user-form" onSubmit={(e) => void submit(e)} noValidate>
        <Field label={t('admin.products.name')} name="name" value={name} maxLength={PRODUCT_NAME_MAX} error={error} onChange={(e) => (setName(e.target.value), setError(undefined))} />
        <label className="admin-check">
          <input type="checkbox" checked={enabled} onChange={(e) => setEnabled(e.target.checked)} />
          {t('admin.products.enabled')}
        </label>
        {product.enabled && !enabled && <p className="muted">{t('admin.products.disableExplain')}</p>}
        <FormError text={request.error} />
        <div className="admin-action-buttons">
          <button type="button" className="btn btn-secondary" onClick={onClose}>
            {t('app.cancel')}
          </button>
          <button type="submit" className="btn btn-primary" disabled={request.busy}>
            {t('admin.products.save')}
          </button>
        </div>
      </form>
    </Dialog>
  );
}

export function ProductsPage() {
  const { t } = useTranslation();
  const canAct = useAdminSession((s) => adminCan(s.admin, 'products:write'));
  const [products, setProducts] = useState<Product[] | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [reload, setReload] = useState(0);
  const [editing, setEditing] = useState<Product | null>(null);

  useEffect(() => {
    const controller = new AbortController();
    setFailure(null);
    fetchProducts(controller.signal)
      .then(setProducts)
      .catch((e: unknown) => {
        if (!controller.signal.aborted) setFailure(errorMessage(e));
      });
    return () => controller.abort();
  }, [reload]);

  const again = useCallback(() => setReload((n) => n + 1), []);
  const saved = () => {
    if (editing) toast.success(t('admin.products.saved', { symbol: editing.symbol }));
    setEditing(null);
    again();
  };

  return (
    <div className="admin-page">
      <h1 className="page-title">{t('admin.nav.products')}</h1>
      {failure ? (
        <ErrorState text={failure} onRetry={again} />
      ) : !products ? (
        <SkeletonRows rows={8} columns={5} />
      ) : products.length === 0 ? (
        <EmptyState text={t('admin.products.none')} />
      ) : (
        <div className="admin-card admin-table-wrap">
          <table className="admin-table">
            <thead>
              <tr>
                <th scope="col">{t('admin.products.symbol')}</th>
                <th scope="col">{t('admin.products.name')}</th>
                <th scope="col">{t('admin.products.category')}</th>
                <th scope="col">{t('admin.products.precision')}</th>
                <th scope="col">{t('admin.products.hours')}</th>
                <th scope="col">{t('admin.products.source')}</th>
                <th scope="col">{t('admin.products.state')}</th>
                {canAct && <th scope="col">{t('admin.rules.actions')}</th>}
              </tr>
            </thead>
            <tbody>
              {products.map((p) => (
                <tr key={p.symbol}>
                  <th scope="row" dir="ltr">
                    {p.symbol}
                  </th>
                  <td dir="auto">{p.name}</td>
                  <td>{t(`admin.products.categories.${p.category}`, { defaultValue: p.category })}</td>
                  <td className="num">{p.precision}</td>
                  <td>{t(`admin.products.hoursKinds.${p.hours}`, { defaultValue: p.hours })}</td>
                  <td>
                    <Source source={p.source ?? ''} />
                  </td>
                  <td>
                    <span className={p.enabled ? 'admin-status admin-status-completed' : 'admin-status'}>{t(p.enabled ? 'admin.products.on' : 'admin.products.off')}</span>
                  </td>
                  {canAct && (
                    <td>
                      <button type="button" className="btn btn-small btn-secondary" aria-label={t('admin.products.editOne', { symbol: p.symbol })} onClick={() => setEditing(p)}>
                        {t('admin.rules.edit')}
                      </button>
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <CatalogueSection canAct={canAct} reload={reload} onAdded={again} />
      {editing && <ProductDialog product={editing} onClose={() => setEditing(null)} onSaved={saved} />}
    </div>
  );
}
