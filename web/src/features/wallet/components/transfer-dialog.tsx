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
import { isAmountText } from '@/lib/decimal';
import { formatMoney } from '@/lib/format';
import { useSubmit } from '@/lib/use-submit';

import { walletApi } from '../api';
import { useWithdrawInfo } from '../hooks/use-withdraw-info';
import { checkTotp, checkUid } from '../validation';
import { FormDone } from './form-done';
import { BlockedNotice } from './withdraw-dialog';

type Fields = 'uid' | 'amount' | 'totp';

/** Naming the recipient: every failure is the UID's (an unknown one in the catalogue's words). */
const REVIEW_FIELDS = { rest: 'uid', texts: { USER_NOT_FOUND: 'wallet.transfer.notFound' } } as const;
/** Sending: the server's refusals that are about one field. */
const SEND_FIELDS = { codes: { INSUFFICIENT_BALANCE: 'amount', TOTP_REQUIRED: 'totp', INVALID_TOTP: 'totp' } } as const;

export function TransferDialog({ open, onClose, onDone }: { open: boolean; onClose(): void; onDone?(): void }) {
  const { t, i18n } = useTranslation();
  const [uid, setUid] = useState('');
  const [amount, setAmount] = useState('');
  const [totp, setTotp] = useState('');
  const [recipient, setRecipient] = useState<{ uid: number; name: string } | null>(null);
  const request = useSubmit<Fields>();
  const { fieldErrors: errors, clear: clearMessages } = request;
  const [done, setDone] = useState(false);

  const { info, loadError, reload, blocked } = useWithdrawInfo(open);
  useEffect(() => {
    if (!open) return;
    setDone(false);
    setRecipient(null);
    clearMessages();
  }, [open, clearMessages]);

  const money = (v: string) => formatMoney(v, i18n.language);

  /** Step one: check the form and name the recipient. */
  const review = async (event: FormEvent) => {
    event.preventDefault();
    if (!info || request.busy || blocked) return;
    const uidProblem = checkUid(uid);
    const amountOk = isAmountText(amount);
    const next = {
      uid: uidProblem ? t(uidProblem) : undefined,
      amount: amountOk ? undefined : t('wallet.validation.amountInvalid'),
      totp: info.requiresTwoFactor && checkTotp(totp) ? t(checkTotp(totp)!) : undefined,
    };
    request.show(next);
    if (Object.values(next).some(Boolean)) return;
    await request.run(async () => setRecipient(await walletApi.recipient(Number(uid.trim()))), REVIEW_FIELDS);
  };

  /** Step two: send, once. */
  const send = async () => {
    if (!recipient || request.busy) return;
    await request.run(
      async () => {
        await walletApi.transfer({ toUid: recipient.uid, amount: amount.trim(), totpCode: info?.requiresTwoFactor ? totp.trim() : undefined });
        setDone(true);
        onDone?.();
      },
      // Back to the form, with the refusal where it belongs: never sent again by itself.
      { ...SEND_FIELDS, onError: () => setRecipient(null) },
    );
  };

  return (
    <Dialog open={open} title={t('wallet.transfer.title')} onClose={onClose} className="dialog-form">
      {done ? (
        <FormDone text={t('wallet.transfer.done', { amount: money(amount), name: recipient?.name ?? '', uid: recipient?.uid ?? '' })} onClose={onClose} />
      ) : loadError ? (
        <ErrorState text={loadError} onRetry={reload} />
      ) : !info ? (
        <Spinner />
      ) : recipient ? (
        <div className="form">
          <p className="confirm-text">{t('wallet.transfer.confirm', { amount: money(amount), name: recipient.name, uid: recipient.uid })}</p>
          <FormError text={request.error} />
          <div className="dialog-actions">
            <button type="button" className="btn btn-secondary" disabled={request.busy} onClick={() => setRecipient(null)}>
              {t('wallet.transfer.back')}
            </button>
            <button type="button" className="btn btn-primary" disabled={request.busy} onClick={() => void send()}>
              {t('wallet.transfer.send')}
            </button>
          </div>
        </div>
      ) : (
        <form className="form" noValidate onSubmit={review}>
          <BlockedNotice until={info.blockedUntil ?? null} action="transfer" />
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
          <FormError text={request.error} />
          <button type="submit" className="btn btn-primary btn-block" disabled={request.busy || blocked}>
            {t('wallet.transfer.next')}
          </button>
        </form>
      )}
    </Dialog>
  );
}
