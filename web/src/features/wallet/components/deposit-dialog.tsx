/**
 * The deposit modal (spec §2, decisions §4): amount within the limits shown before sending,
 * the payment method, the platform's receiving details for it with copy buttons, the payer's
 * account, and a receipt image uploaded with its progress. The result is a pending recharge
 * order that an admin approves or rejects; its status shows in the bill.
 */
import { type FormEvent, useEffect, useId, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';

import { CopyButton } from '@/components/copy-button';
import { Dialog } from '@/components/dialog';
import { Field } from '@/components/field';
import { FormError } from '@/components/form-error';
import { ErrorState, Spinner } from '@/components/states';
import { errorMessage } from '@/lib/api-client';
import { formatMoney } from '@/lib/format';
import { useSubmit } from '@/lib/use-submit';

import { type DepositInfo, PAY_METHODS, type PayMethod, walletApi } from '../api';
import { type AmountCheck, checkAmount, checkReceipt } from '../validation';
import { FormDone } from './form-done';

/** The form's fields, named as the server names them in a refusal. */
const FIELDS = ['amount', 'accountName', 'accountNumber', 'bankName', 'receipt'] as const;

interface Receipt {
  file: File;
  /** 0-100 while uploading. */
  progress: number;
  /** The server's name once uploaded. */
  name: string | null;
  error: string | null;
}

export function DepositDialog({ open, onClose, onDone }: { open: boolean; onClose(): void; onDone?(order: number): void }) {
  const { t, i18n } = useTranslation();
  const [info, setInfo] = useState<DepositInfo | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [amount, setAmount] = useState('');
  const [method, setMethod] = useState<PayMethod>('bank_transfer');
  const [accountName, setAccountName] = useState('');
  const [accountNumber, setAccountNumber] = useState('');
  const [bankName, setBankName] = useState('');
  const [receipt, setReceipt] = useState<Receipt | null>(null);
  const request = useSubmit({ fields: FIELDS });
  const errors = request.fieldErrors;
  const [created, setCreated] = useState<number | null>(null);
  const upload = useRef<AbortController | null>(null);
  const methodId = useId();

  const load = () => {
    setLoadError(null);
    walletApi.depositInfo().then(setInfo, (e: unknown) => setLoadError(errorMessage(e)));
  };
  useEffect(() => {
    if (!open) return;
    setCreated(null);
    load();
    return () => upload.current?.abort();
  }, [open]);

  const amountText = (check: AmountCheck) => (check ? t(check.key, check.args) : undefined);
  const account = info?.accounts.find((a) => a.method === method);
  const bank = method === 'bank_transfer';

  const choose = (file: File | null) => {
    upload.current?.abort();
    const problem = checkReceipt(file);
    if (!file || problem) {
      setReceipt(null);
      request.setFieldError('receipt', t(problem ?? 'wallet.validation.receiptRequired'));
      return;
    }
    request.setFieldError('receipt');
    const controller = new AbortController();
    upload.current = controller;
    setReceipt({ file, progress: 0, name: null, error: null });
    walletApi
      .uploadReceipt(file, { signal: controller.signal, onProgress: (progress) => setReceipt((r) => (r && r.file === file ? { ...r, progress } : r)) })
      .then(
        ({ name }) => setReceipt((r) => (r && r.file === file ? { ...r, progress: 100, name } : r)),
        (e: unknown) => {
          if (e instanceof DOMException && e.name === 'AbortError') return;
          setReceipt((r) => (r && r.file === file ? { ...r, error: errorMessage(e) } : r));
        },
      );
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!info || request.busy) return;
    const next = {
      amount: amountText(checkAmount(amount, info.minAmount, info.maxAmount)),
      accountName: accountName.trim() ? undefined : t('wallet.validation.accountNameRequired'),
      accountNumber: accountNumber.trim() ? undefined : t(bank ? 'wallet.validation.accountNumberRequired' : 'wallet.validation.fromAddressRequired'),
      bankName: !bank || bankName.trim() ? undefined : t('wallet.validation.bankNameRequired'),
      receipt: !receipt ? t('wallet.validation.receiptRequired') : !receipt.name ? t('wallet.validation.receiptUploading') : undefined,
    };
    request.show(next);
    if (Object.values(next).some(Boolean)) return;
    await request.run(async () => {
      const answer = await walletApi.deposit({
        amount: amount.trim(),
        method,
        accountName: accountName.trim(),
        accountNumber: accountNumber.trim(),
        bankName: bank ? bankName.trim() : '',
        receipt: receipt!.name!,
      });
      setCreated(answer.orderId);
      onDone?.(answer.orderId);
      setAmount('');
      setReceipt(null);
    });
  };

  return (
    <Dialog open={open} title={t('wallet.deposit.title')} onClose={onClose} className="dialog-form">
      {created !== null ? (
        <FormDone text={t('wallet.deposit.created', { id: created })} note={t('wallet.deposit.pendingNote')} onClose={onClose} />
      ) : loadError ? (
        <ErrorState text={loadError} onRetry={load} />
      ) : !info ? (
        <Spinner />
      ) : (
        <form className="form" noValidate onSubmit={submit}>
          <Field
            label={t('wallet.amount')}
            inputMode="decimal"
            autoComplete="off"
            value={amount}
            onChange={(e) => setAmount(e.target.value)}
            error={errors.amount}
            hint={t('wallet.limits', { min: formatMoney(info.minAmount, i18n.language), max: formatMoney(info.maxAmount, i18n.language) })}
            after={<span className="field-unit">USDT</span>}
          />
          <fieldset className="field">
            <legend className="field-label" id={methodId}>
              {t('wallet.deposit.method')}
            </legend>
            <div className="chip-row" role="radiogroup" aria-labelledby={methodId}>
              {PAY_METHODS.map((m) => (
                <label key={m} className={`chip ${method === m ? 'chip-active' : ''}`}>
                  <input type="radio" name="deposit-method" className="sr-only" value={m} checked={method === m} onChange={() => setMethod(m)} />
                  {t(`wallet.method.${m}`)}
                </label>
              ))}
            </div>
          </fieldset>
          <section className="receiving card-inset" aria-label={t('wallet.deposit.payTo')}>
            <h3 className="section-title">{t('wallet.deposit.payTo')}</h3>
            {account ? (
              <dl className="detail-pairs">
                <div>
                  <dt>{t(bank ? 'wallet.accountName' : 'wallet.deposit.network')}</dt>
                  <dd>
                    <span className="ltr">{bank ? account.name : t(`wallet.method.${method}`)}</span>
                    {bank && <CopyButton text={account.name} label={t('wallet.accountName')} />}
                  </dd>
                </div>
                <div>
                  <dt>{t(bank ? 'wallet.accountNumber' : 'wallet.address')}</dt>
                  <dd>
                    <span className="ltr break">{account.number}</span>
                    <CopyButton text={account.number} label={t(bank ? 'wallet.accountNumber' : 'wallet.address')} />
                  </dd>
                </div>
                {bank && (
                  <div>
                    <dt>{t('wallet.bankName')}</dt>
                    <dd>
                      <span>{account.bank}</span>
                      <CopyButton text={account.bank} label={t('wallet.bankName')} />
                    </dd>
                  </div>
                )}
              </dl>
            ) : (
              <p className="muted" role="status">
                {t('wallet.deposit.notConfigured')}
              </p>
            )}
          </section>
          <Field label={t(bank ? 'wallet.deposit.yourAccountName' : 'wallet.deposit.yourName')} autoComplete="name" value={accountName} onChange={(e) => setAccountName(e.target.value)} error={errors.accountName} />
          <Field
            label={t(bank ? 'wallet.deposit.yourAccountNumber' : 'wallet.deposit.fromAddress')}
            autoComplete="off"
            dir="ltr"
            value={accountNumber}
            onChange={(e) => setAccountNumber(e.target.value)}
            error={errors.accountNumber}
          />
          {bank && <Field label={t('wallet.deposit.yourBankName')} autoComplete="off" value={bankName} onChange={(e) => setBankName(e.target.value)} error={errors.bankName} />}
          <div className="field">
            <label className="field-label" htmlFor={`${methodId}-receipt`}>
              {t('wallet.deposit.receipt')}
            </label>
            <input
              id={`${methodId}-receipt`}
              type="file"
              accept="image/png,image/jpeg,image/gif,image/webp"
              className="input"
              aria-invalid={errors.receipt ? true : undefined}
              onChange={(e) => choose(e.target.files?.[0] ?? null)}
            />
            {receipt && (
              <div className="upload-progress">
                <progress max={100} value={receipt.progress} aria-label={t('wallet.deposit.uploadProgress')} />
                <span className="num" aria-live="polite">
                  {receipt.error ? '' : receipt.name ? t('wallet.deposit.uploaded') : t('wallet.deposit.uploading', { percent: receipt.progress })}
                </span>
              </div>
            )}
            {(receipt?.error ?? errors.receipt) && (
              <div className="field-error" role="alert">
                {receipt?.error ?? errors.receipt}
              </div>
            )}
          </div>
          <FormError text={request.error} />
          <button type="submit" className="btn btn-primary btn-block" disabled={request.busy || !account}>
            {t('wallet.deposit.submit')}
          </button>
        </form>
      )}
    </Dialog>
  );
}
