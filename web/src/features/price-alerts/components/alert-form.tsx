/**
 * Sets one alert on a product: the price typed is checked as it is typed, the line under it
 * says whether the alert waits for a rise or a fall from the price of now.
 */
import { type FormEvent, useState } from 'react';
import { useTranslation } from 'react-i18next';

import { Field } from '@/components/field';
import { FormError } from '@/components/form-error';
import { formatDecimal } from '@/lib/format';
import { useSubmit } from '@/lib/use-submit';
import { toast } from '@/stores/toast';

import { alertDirection, checkAlertPrice } from '../form';
import { useAlerts } from '../stores/alerts';

interface AlertFormProps {
  symbol: string;
  precision: number;
  /** The price of now, if known. */
  price: string | null;
}

export function AlertForm({ symbol, precision, price }: AlertFormProps) {
  const { t, i18n } = useTranslation();
  const add = useAlerts((s) => s.add);
  const full = useAlerts((s) => s.loaded && s.waiting.length >= s.max);
  const [text, setText] = useState('');
  const [touched, setTouched] = useState(false);
  const request = useSubmit({ fields: ['price'] });

  const problem = checkAlertPrice(text, precision, price);
  const fieldError = request.fieldErrors.price ?? (touched && problem ? t(`alerts.error.${problem}`, { decimals: precision }) : null);
  const direction = alertDirection(text.trim(), price);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setTouched(true);
    request.clear();
    if (problem || request.busy) return;
    await request.run(async () => {
      const alert = await add(symbol, text.trim());
      toast.success(t(`alerts.saved.${alert.direction}`, { price: formatDecimal(alert.price, i18n.language, precision) }));
      setText('');
      setTouched(false);
    });
  };

  return (
    <form className="alert-form" onSubmit={(e) => void submit(e)} noValidate>
      <p className="muted">
        {t('alerts.current')} <span className="num ltr">{price ? formatDecimal(price, i18n.language, precision) : '--'}</span>
      </p>
      <Field
        label={t('alerts.price')}
        inputMode="decimal"
        autoComplete="off"
        value={text}
        onChange={(e) => {
          setText(e.target.value);
          request.clear();
        }}
        onBlur={() => setTouched(true)}
        error={fieldError}
        hint={direction ? t(`alerts.when.${direction}`) : t('alerts.hint')}
      />
      <FormError text={request.error ?? (full ? t('alerts.full') : null)} />
      <button type="submit" className="btn btn-primary btn-block" disabled={request.busy || full}>
        {t('alerts.set')}
      </button>
    </form>
  );
}
