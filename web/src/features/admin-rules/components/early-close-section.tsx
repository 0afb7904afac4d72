/**
 * Early close's terms (decisions §11): whether a contract may be sold back before expiry, the
 * cut-off before expiry with no offer, and the spread taken from the published formula's fair
 * value: a default, a duration's own (empty: the default), and per product an extra spread or
 * no early close at all. The terms apply to every sale from now on and each change is audited;
 * nothing here can choose or change any one offer (§1).
 */
import { type FormEvent, useCallback, useEffect, useId, useState } from 'react';
import { useTranslation } from 'react-i18next';

import { Field } from '@/components/field';
import { FormError } from '@/components/form-error';
import { ErrorState, SkeletonRows } from '@/components/states';
import { errorMessage } from '@/lib/api-client';
import { formatDuration, formatRate } from '@/lib/format';
import { useSubmit } from '@/lib/use-submit';
import { adminCan, useAdminSession } from '@/stores/admin-session';
import { toast } from '@/stores/toast';

import { type EarlyClose, type ListedProduct, fetchEarlyClose, fetchListedProducts, saveEarlyClose } from '../api';
import {
  type EarlyCloseErrors,
  type EarlyCloseForm,
  PRODUCT_DEFAULT,
  type ProductSaleForm,
  checkEarlyClose,
  isRate,
  productKey,
  toEarlyCloseBody,
  toEarlyCloseForm,
} from '../form';

/** The server's `field` of a refusal, to the part of the form it is about. */
type Part = 'cutoffSecs' | 'spread' | 'durations' | 'products';
const SERVER_FIELDS = { fields: { cutoff: 'cutoffSecs', cutoffSecs: 'cutoffSecs', spread: 'spread', durations: 'durations', products: 'products' } } as const;

/** A product row: its symbol as the terms name it, and its display name when listed. */
interface ProductRow {
  key: string;
  symbol: string;
  name: string | null;
}

/** The listed products in their order, then the products only the terms name. */
function productRows(listed: readonly ListedProduct[] | null, form: EarlyCloseForm): ProductRow[] {
  const rows: ProductRow[] = (listed ?? []).map((p) => ({ key: productKey(p.symbol), symbol: p.symbol, name: p.name }));
  const seen = new Set(rows.map((r) => r.key));
  const extra = Object.keys(form.products)
    .filter((key) => !seen.has(key))
    .sort()
    .map((key) => ({ key, symbol: key, name: null }));
  return [...rows, ...extra];
}

/** A rate input in a table cell: its label is the row's, its message tied to it. */
function RateCell({ label, name, value, hint, error, readOnly, onChange }: { label: string; name: string; value: string; hint?: string; error?: string; readOnly: boolean; onChange(value: string): void }) {
  const id = useId();
  const message = error ?? hint;
  return (
    <>
      <input
        className="input"
        name={name}
        aria-label={label}
        inputMode="decimal"
        dir="ltr"
        value={value}
        readOnly={readOnly}
        aria-invalid={error ? true : undefined}
        aria-describedby={message ? id : undefined}
        onChange={(e) => onChange(e.target.value)}
      />
      {message && (
        <div id={id} className={error ? 'field-error' : 'field-hint'} role={error ? 'alert' : undefined}>
          {message}
        </div>
      )}
    </>
  );
}

function EarlyCloseFormView({ terms, listed, durations, canAct, onSaved }: { terms: EarlyClose; listed: ListedProduct[] | null; durations: readonly number[]; canAct: boolean; onSaved(terms: EarlyClose): void }) {
  const { t, i18n } = useTranslation();
  const lang = i18n.language;
  const titleId = useId();
  const [form, setForm] = useState<EarlyCloseForm>(() => toEarlyCloseForm(terms));
  const [checks, setChecks] = useState<EarlyCloseErrors>({});
  const request = useSubmit<Part>(SERVER_FIELDS);

  const touch = (key: string, part: Part) => {
    setChecks((found) => ({ ...found, [key]: '' }));
    request.setFieldError(part);
    request.setError(null);
  };
  const message = (key: string, part: Part) => (checks[key] ? t(checks[key]) : key === part ? request.fieldErrors[part] : undefined);
  const percent = (value: string) => (isRate(value) ? formatRate(value.trim(), lang) : null);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const found = checkEarlyClose(form);
    setChecks(found);
    request.clear();
    if (Object.keys(found).length > 0) return;
    await request.run(async () => {
      const saved = await saveEarlyClose(toEarlyCloseBody(form));
      setForm(toEarlyCloseForm(saved));
      onSaved(saved);
      toast.success(t('admin.rules.early.saved'));
    });
  };

  const setDuration = (duration: number, value: string) => {
    setForm({ ...form, durations: { ...form.durations, [duration]: value } });
    touch(`durations.${duration}`, 'durations');
  };
  const setProduct = (key: string, change: Partial<ProductSaleForm>) => {
    setForm({ ...form, products: { ...form.products, [key]: { ...(form.products[key] ?? PRODUCT_DEFAULT), ...change } } });
    touch(`products.${key}`, 'products');
  };

  const cutoff = form.cutoffSecs.trim();
  const cutoffHint = !/^\d{1,6}$/.test(cutoff)
    ? t('admin.rules.early.cutoffHint')
    : Number(cutoff) === 0
      ? t('admin.rules.early.cutoffNone')
      : t('admin.rules.early.cutoffNow', { duration: formatDuration(Number(cutoff), t) });
  const spreadPercent = percent(form.spread);
  const defaultPercent = spreadPercent ?? formatRate(terms.spread, lang);
  const allDurations = [...new Set([...durations, ...Object.keys(form.durations).map(Number)])].sort((a, b) => a - b);
  const rows = productRows(listed, form);

  return (
    <form className="admin-card admin-user-form" onSubmit={(e) => void submit(e)} noValidate aria-labelledby={titleId}>
      <h2 id={titleId} className="admin-card-title">
        {t('admin.rules.early.title')}
      </h2>
      <p className="admin-note">{t('admin.rules.early.about')}</p>
      <label className="admin-check">
        <input type="checkbox" role="switch" name="enabled" disabled={!canAct} checked={form.enabled} onChange={(e) => setForm({ ...form, enabled: e.target.checked })} />
        {t('admin.rules.early.enabled')}
      </label>
      <div className="admin-grid admin-grid-2">
        <Field
          label={t('admin.rules.early.cutoffSecs')}
          name="cutoffSecs"
          inputMode="numeric"
          dir="ltr"
          readOnly={!canAct}
          value={form.cutoffSecs}
          hint={cutoffHint}
          error={message('cutoffSecs', 'cutoffSecs')}
          onChange={(e) => (setForm({ ...form, cutoffSecs: e.target.value }), touch('cutoffSecs', 'cutoffSecs'))}
        />
        <Field
          label={t('admin.rules.early.spread')}
          name="spread"
          inputMode="decimal"
          dir="ltr"
          readOnly={!canAct}
          value={form.spread}
          hint={spreadPercent ? t('admin.rules.early.spreadIs', { percent: spreadPercent }) : t('admin.rules.early.fractionHint')}
          error={message('spread', 'spread')}
          onChange={(e) => (setForm({ ...form, spread: e.target.value }), touch('spread', 'spread'))}
        />
      </div>
      <p className="muted">{t('admin.rules.early.window', { window: terms.windowReturns, min: terms.windowReturnsMin })}</p>

      <fieldset className="admin-account admin-user-form">
        <legend className="admin-card-title">{t('admin.rules.early.durationsTitle')}</legend>
        <p className="muted">{t('admin.rules.early.durationsExplain')}</p>
        {allDurations.length === 0 ? (
          <p className="muted">{t('admin.rules.early.noDurations')}</p>
        ) : (
          <div className="admin-grid admin-grid-3">
            {allDurations.map((duration) => {
              const value = form.durations[duration] ?? '';
              const own = percent(value);
              return (
                <Field
                  key={duration}
                  label={t('admin.rules.early.durationSpread', { duration: formatDuration(duration, t) })}
                  name={`duration-${duration}`}
                  inputMode="decimal"
                  dir="ltr"
                  readOnly={!canAct}
                  value={value}
                  hint={value.trim() === '' ? t('admin.rules.early.usesDefault', { percent: defaultPercent }) : own ? t('admin.rules.early.spreadIs', { percent: own }) : undefined}
                  error={message(`durations.${duration}`, 'durations')}
                  onChange={(e) => setDuration(duration, e.target.value)}
                />
              );
            })}
          </div>
        )}
        <FormError text={request.fieldErrors.durations} />
      </fieldset>

      <fieldset className="admin-account admin-user-form">
        <legend className="admin-card-title">{t('admin.rules.early.productsTitle')}</legend>
        <p className="muted">{t('admin.rules.early.productsExplain')}</p>
        {!listed && <p className="muted">{t('admin.rules.early.productsUnavailable')}</p>}
        {rows.length > 0 && (
          <div className="admin-table-wrap">
            <table className="admin-table">
              <thead>
                <tr>
                  <th scope="col">{t('admin.rules.early.product')}</th>
                  <th scope="col">{t('admin.rules.early.productEnabled')}</th>
                  <th scope="col">{t('admin.rules.early.productSpread')}</th>
                </tr>
              </thead>
              <tbody>
                {rows.map((row) => {
                  const product = form.products[row.key] ?? PRODUCT_DEFAULT;
                  const added = product.spread.trim() === '' ? null : percent(product.spread);
                  return (
                    <tr key={row.key}>
                      <th scope="row">
                        <bdi dir="ltr">{row.symbol}</bdi>
                        {row.name && (
                          <>
                            {' '}
                            <bdi className="muted">{row.name}</bdi>
                          </>
                        )}
                      </th>
                      <td>
                        <input
                          type="checkbox"
                          role="switch"
                          name={`product-${row.key}`}
                          aria-label={t('admin.rules.early.productEnabledOne', { symbol: row.symbol })}
                          disabled={!canAct}
                          checked={product.enabled}
                          onChange={(e) => setProduct(row.key, { enabled: e.target.checked })}
                        />
                      </td>
                      <td className="admin-rate-cell">
                        <RateCell
                          label={t('admin.rules.early.productSpreadOne', { symbol: row.symbol })}
                          name={`product-spread-${row.key}`}
                          value={product.spread}
                          readOnly={!canAct}
                          hint={added ? t('admin.rules.early.addedIs', { percent: added }) : undefined}
                          error={checks[`products.${row.key}`] ? t(checks[`products.${row.key}`]!) : undefined}
                          onChange={(value) => setProduct(row.key, { spread: value })}
                        />
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        )}
        <FormError text={request.fieldErrors.products} />
      </fieldset>

      <p className="muted">{t('admin.rules.early.fromNow')}</p>
      <FormError text={request.error} />
      {canAct && (
        <button type="submit" className="btn btn-primary" disabled={request.busy}>
          {t('admin.rules.early.save')}
        </button>
      )}
    </form>
  );
}

/** Early close's terms, loaded with the listed products; `durations`: the rules' durations. */
export function EarlyCloseSection({ durations }: { durations: readonly number[] }) {
  const { t } = useTranslation();
  const canAct = useAdminSession((s) => adminCan(s.admin, 'rules:write'));
  // The products API needs its own permission; without it the terms' own products are shown.
  const canListProducts = useAdminSession((s) => adminCan(s.admin, 'products:read'));
  const [loaded, setLoaded] = useState<{ terms: EarlyClose; listed: ListedProduct[] | null } | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [reload, setReload] = useState(0);

  useEffect(() => {
    const controller = new AbortController();
    setFailure(null);
    const listed = canListProducts ? fetchListedProducts(controller.signal).catch(() => null) : Promise.resolve(null);
    Promise.all([fetchEarlyClose(controller.signal), listed])
      .then(([terms, products]) => setLoaded({ terms, listed: products }))
      .catch((e: unknown) => {
        if (!controller.signal.aborted) setFailure(errorMessage(e));
      });
    return () => controller.abort();
  }, [reload, canListProducts]);
  const again = useCallback(() => setReload((n) => n + 1), []);

  if (failure) {
    return (
      <section className="admin-card" aria-label={t('admin.rules.early.title')}>
        <h2 className="admin-card-title">{t('admin.rules.early.title')}</h2>
        <ErrorState text={failure} onRetry={again} />
      </section>
    );
  }
  if (!loaded) return <SkeletonRows rows={4} columns={3} />;
  return <EarlyCloseFormView terms={loaded.terms} listed={loaded.listed} durations={durations} canAct={canAct} onSaved={(terms) => setLoaded({ ...loaded, terms })} />;
}
