/**
 * The transfer modal (decisions §4): real USDT to another user by UID, instantly. The
 * recipient's name is looked up and shown, and the sender confirms it before anything moves;
 * like a withdrawal it asks for the 2FA code when 2FA is on and shows the 24 h block after a
 * password change (the server enforces both).
 */
import { type FormEvent, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';

import { Dialog } from '@/components/dialog';
import { Field } from '@/components/field';
import { FormError } from '@/components/form-error';
import { ErrorState, Spinner } from '@/components/states';
import { ApiError, errorMessage } from '@/lib/api-client';
import { isAmountText } from '@/lib/decimal';
import { formatMoney } from '@/lib/format';

import { type WithdrawInfo, walletApi } from '../api';
import { checkTotp, checkUid } from '../validation';
import { FormDone } from './form-done';
import { BlockedNotice } from './withdraw-dialog';

type Errors = Partial<Record<'uid' | 'amount' | 'totp' | 'form', string>>;

export function TransferDialog({ open, onClose, onDone }: { open: boolean; onClose(): void; onDone?(): void }) {
  const { t, i18n } = useTranslation();
  const [info, setInfo] = useState<WithdrawInfo | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [uid, setUid] = useState('');
  const [amount, setAmount] = useState('');
  const [totp, setTotp] = useState('');
  const [recipient, setRecipient] = useState<{ uid: number; name: string } | null>(null);
  const [errors, setErrors] = useState<Errors>({});
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState(false);

  const load = () => {
    setLoadError(null);
    walletApi.withdrawInfo().then(setInfo, (e: unknown) => setLoadError(errorMessage(e)));
  };
  useEffect(() => {
    if (!open) return;
    setDone(false);
    setRecipient(null);
    setErrors({});
    load();
  }, [open]);

  const blocked = info?.blockedUntil !== null && info?.blockedUntil !== undefined && info.blockedUntil > Date.now();
  const money = (v: string) => formatMoney(v, i18n.language);

  /** Step one: check the form and name the recipient. */
  const review = async (event: FormEvent) => {
    event.preventDefault();
    if (!info || busy || blocked) return;
    const uidProblem = checkUid(uid);
    const amountOk = isAmountText(amount);
    const next: Errors = {
      uid: uidProblem ? t(uidProblem) : undefined,
      amount: amountOk ? undefined : t('wallet.validation.amountInvalid'),
      totp: info.requiresTwoFactor && checkTotp(totp) ? t(checkTotp(totp)!) : undefined,
    };
    setErrors(next);
    if (Object.values(next).some(Boolean)) return;
    setBusy(true);
    try {
      setRecipient(await walletApi.recipient(Number(uid.trim())));
    } catch (e) {
      setErrors({ uid: e instanceof ApiError && e.code === 'USER_NOT_FOUND' ? t('wallet.transfer.notFound') : errorMessage(e) });
    } finally {
      setBusy(false);
    }
  };

  /** Step two: send, once. */
  const send = async () => {
    if (!recipient || busy) return;
    setBusy(true);
    try {
      await walletApi.transfer({ toUid: recipient.uid, amount: amount.trim(), totpCode: info?.requiresTwoFactor ? totp.trim() : undefined });
      setDone(true);
      onDone?.();
    } catch (e) {
      setRecipient(null);
      const code = e instanceof ApiError ? e.code : '';
      const field: keyof Errors = code === 'INSUFFICIENT_BALANCE' ? 'amount' : code === 'TOTP_REQUIRED' || code === 'INVALID_TOTP' ? 'totp' : 'form';
      setErrors({ [field]: errorMessage(e) });
    } finally {
      setBusy(false);
    }
  };

  return (
    <Dialog open={open} title={t('wallet.transfer.title')} onClose={onClose} className="dialog-form">
      {done ? (
        <FormDone text={t('wallet.transfer.done', { amount: money(amount), name: recipient?.name ?? '', uid: recipient?.uid ?? '' })} onClose={onClose} />
      ) : loadError ? (
        <ErrorState text={loadError} onRetry={load} />
      ) : !info ? (
        <Spinner />
      ) : recipient ? (
        <div className="form">
          <p className="confirm-text">{t('wallet.transfer.confirm', { amount: money(amount), name: recipient.name, uid: recipient.uid })}</p>
          <FormError text={errors.form} />
          <div className="dialog-actions">
            <button type="button" className="btn btn-secondary" disabled={busy} onClick={() => setRecipient(null)}>
              {t('wallet.transfer.back')}
            </button>
            <button type="button" className="btn btn-primary" disabled={busy} onClick={() => void send()}>
              {t('wallet.transfer.send')}
            </button>
          </div>
        </div>
      ) : (
        <form className="form" noValidate onSubmit={review}>
          <BlockedNotice until={info.blockedUntil} action="transfer" />
          <Field label={t('wallet.transfer.uid')} inputMode="numeric" autoComplete="off" value={uid} onChange={(e) => setUid(e.target.value)} error={errors.uid} />
          <Field
            label={t('wallet.amount')}
            inputMode="decimal"
            autoComplete="off"
            value={amount}
            onChange={(e) => setAmount(e.target.value)}
            error={errors.amount}
            hint={t('wallet.transfer.available', { available: money(info.available) })}
            after={<span className="field-unit">USDT</span>}
          />
          {info.requiresTwoFactor && (
            <Field label={t('wallet.totp')} inputMode="numeric" autoComplete="one-time-code" maxLength={6} value={totp} onChange={(e) => setTotp(e.target.value)} error={errors.totp} />
          )}
          <FormError text={errors.form} />
          <button type="submit" className="btn btn-primary btn-block" disabled={busy || blocked}>
            {t('wallet.transfer.next')}
          </button>
        </form>
      )}
    </Dialog>
  );
}
