/**
 * The withdrawal modal (spec §2 and §5, decisions §4): to a saved or new wallet address or a
 * bank card; the fee and the actual amount as the user types (the server's rate and fixed fee,
 * decimal arithmetic); min, max and the available balance; the 24 h block after a password
 * change with its end time; the 2FA code when 2FA is on.
 */
import { type FormEvent, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';

import { Dialog } from '@/components/dialog';
import { Field } from '@/components/field';
import { FormError } from '@/components/form-error';
import { TrashIcon } from '@/components/icons';
import { ErrorState, Spinner } from '@/components/states';
import { Tabs } from '@/components/tabs';
import { errorMessage } from '@/lib/api-client';
import { formatDateTime, formatMoney } from '@/lib/format';
import { useSubmit } from '@/lib/use-submit';

import { type Chain, type WithdrawRequest, walletApi } from '../api';
import { useWithdrawInfo } from '../hooks/use-withdraw-info';
import { checkAddress, checkAmount, checkBank, checkTotp, withdrawalFee } from '../validation';
import { FormDone } from './form-done';

type Method = 'wallet' | 'bank';
type Fields = 'amount' | 'address' | 'bank' | 'totp';
const CHAINS: Chain[] = ['tron', 'eth'];

/** The server's refusals of a withdrawal that are about one field. */
const WITHDRAW_FIELDS = {
  codes: { AMOUNT_OUT_OF_RANGE: 'amount', INSUFFICIENT_BALANCE: 'amount', TOTP_REQUIRED: 'totp', INVALID_TOTP: 'totp' },
} as const;

/** The block's end as a sentence, or nothing when money may leave. */
export function BlockedNotice({ until, action }: { until: number | null; action: 'withdraw' | 'transfer' }) {
  const { t, i18n } = useTranslation();
  if (until === null || until <= Date.now()) return null;
  return (
    <div className="notice notice-warning" role="alert">
      {t(`wallet.blocked.${action}`, { time: formatDateTime(until, i18n.language) })}
    </div>
  );
}

export function WithdrawDialog({ open, onClose, onDone }: { open: boolean; onClose(): void; onDone?(order: number): void }) {
  const { t, i18n } = useTranslation();
  const [method, setMethod] = useState<Method>('wallet');
  const [amount, setAmount] = useState('');
  const [position, setPosition] = useState<number | null>(null);
  const [adding, setAdding] = useState(false);
  const [chain, setChain] = useState<Chain>('tron');
  const [address, setAddress] = useState('');
  const [label, setLabel] = useState('');
  const [bank, setBank] = useState({ accountName: '', accountNumber: '', bankName: '' });
  const [totp, setTotp] = useState('');
  const request = useSubmit<Fields>();
  const { fieldErrors: errors, clear: clearMessages } = request;
  const [created, setCreated] = useState<number | null>(null);

  const { info, setInfo, loadError, reload, blocked } = useWithdrawInfo(open, (answer) => {
    const preferred = answer.addresses.find((a) => a.isDefault) ?? answer.addresses[0];
    setPosition(preferred ? preferred.position : null);
    setAdding(answer.addresses.length === 0);
  });
  useEffect(() => {
    if (!open) return;
    setCreated(null);
    clearMessages();
  }, [open, clearMessages]);

  const money = (v: string) => formatMoney(v, i18n.language);
  const preview = info ? withdrawalFee(amount, info.feeRate, info.feeFixed) : null;

  const saveAddress = async () => {
    const problem = checkAddress(chain, address);
    if (problem) {
      request.show({ address: t(problem) });
      return;
    }
    // Any failure is the address's; what was shown stays until the answer.
    await request.run(
      async () => {
        const makeDefault = !info?.addresses.length;
        const list = await walletApi.addAddress({ label: label.trim(), chain, address: address.trim(), isDefault: makeDefault });
        setInfo((i) => (i ? { ...i, addresses: list } : i));
        const saved = list.find((a) => a.address === address.trim() && a.chain === chain);
        setPosition(saved ? saved.position : null);
        setAdding(false);
        setAddress('');
        setLabel('');
      },
      { rest: 'address', keepMessages: true },
    );
  };

  const removeAddress = async (at: number) => {
    try {
      const list = await walletApi.removeAddress(at);
      setInfo((i) => (i ? { ...i, addresses: list } : i));
      const preferred = list.find((a) => a.isDefault) ?? list[0];
      setPosition(preferred ? preferred.position : null);
      if (list.length === 0) setAdding(true);
    } catch (e) {
      request.show({}, errorMessage(e));
    }
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!info || request.busy || blocked) return;
    const amountCheck = checkAmount(amount, info.minAmount, info.maxAmount, info.available);
    const next = {
      amount: amountCheck ? t(amountCheck.key, amountCheck.args) : undefined,
      address: method === 'wallet' && position === null ? t('wallet.validation.addressRequired') : undefined,
      bank: method === 'bank' && checkBank(bank) ? t(checkBank(bank)!) : undefined,
      totp: info.requiresTwoFactor && checkTotp(totp) ? t(checkTotp(totp)!) : undefined,
    };
    request.show(next);
    if (Object.values(next).some(Boolean)) return;
    const totpCode = info.requiresTwoFactor ? totp.trim() : undefined;
    const body: WithdrawRequest =
      method === 'wallet'
        ? { method, amount: amount.trim(), addressPosition: position!, totpCode }
        : { method, amount: amount.trim(), accountName: bank.accountName.trim(), accountNumber: bank.accountNumber.trim(), bankName: bank.bankName.trim(), totpCode };
    await request.run(async () => {
      const answer = await walletApi.withdraw(body);
      setCreated(answer.orderId);
      onDone?.(answer.orderId);
      setAmount('');
      setTotp('');
    }, WITHDRAW_FIELDS);
  };

  return (
    <Dialog open={open} title={t('wallet.withdraw.title')} onClose={onClose} className="dialog-form">
      {created !== null ? (
        <FormDone text={t('wallet.withdraw.created', { id: created })} note={t('wallet.withdraw.pendingNote')} onClose={onClose} />
      ) : loadError ? (
        <ErrorState text={loadError} onRetry={reload} />
      ) : !info ? (
        <Spinner />
      ) : (
        <form className="form" noValidate onSubmit={submit}>
          <BlockedNotice until={info.blockedUntil ?? null} action="withdraw" />
          <Tabs
            label={t('wallet.withdraw.method')}
            value={method}
            onChange={(m) => {
              setMethod(m);
              request.clear();
            }}
            items={[
              { key: 'wallet', label: t('wallet.withdraw.toWallet') },
              { key: 'bank', label: t('wallet.withdraw.toBank') },
            ]}
          />
          {method === 'wallet' ? (
            <fieldset className="field">
              <legend className="field-label">{t('wallet.withdraw.addresses')}</legend>
              {info.addresses.length > 0 && (
                <ul className="address-list">
                  {info.addresses.map((a) => (
                    <li key={a.position} className="address-row">
                      <label className="address-choice">
                        <input type="radio" name="withdraw-address" checked={position === a.position} onChange={() => setPosition(a.position)} />
                        <span>
                          <strong>{a.label || t(`wallet.chain.${a.chain}`)}</strong> <span className="muted">{t(`wallet.chain.${a.chain}`)}</span>
                          {a.isDefault && <span className="pill">{t('wallet.withdraw.default')}</span>}
                          <span className="ltr break muted address-text">{a.address}</span>
                        </span>
                      </label>
                      <button type="button" className="icon-button" aria-label={t('wallet.withdraw.removeAddress', { address: a.address })} onClick={() => void removeAddress(a.position)}>
                        <TrashIcon />
                      </button>
                    </li>
                  ))}
                </ul>
              )}
              {adding ? (
                <div className="card-inset add-address">
                  <label className="field-label" htmlFor="withdraw-chain">
                    {t('wallet.network')}
                  </label>
                  <select id="withdraw-chain" className="input" value={chain} onChange={(e) => setChain(e.target.value as Chain)}>
                    {CHAINS.map((c) => (
                      <option key={c} value={c}>
                        {t(`wallet.chain.${c}`)}
                      </option>
                    ))}
                  </select>
                  <Field label={t('wallet.address')} dir="ltr" autoComplete="off" value={address} onChange={(e) => setAddress(e.target.value)} error={errors.address} />
                  <Field label={t('wallet.withdraw.label')} autoComplete="off" maxLength={40} value={label} onChange={(e) => setLabel(e.target.value)} />
                  <button type="button" className="btn btn-secondary btn-small" disabled={request.busy} onClick={() => void saveAddress()}>
                    {t('wallet.withdraw.saveAddress')}
                  </button>
                </div>
              ) : (
                <>
                  {errors.address && (
                    <div className="field-error" role="alert">
                      {errors.address}
                    </div>
                  )}
                  <button type="button" className="btn btn-ghost btn-small" onClick={() => setAdding(true)}>
                    {t('wallet.withdraw.addAddress')}
                  </button>
                </>
              )}
            </fieldset>
          ) : (
            <>
              <Field label={t('wallet.cardName')} autoComplete="name" value={bank.accountName} onChange={(e) => setBank({ ...bank, accountName: e.target.value })} />
              <Field label={t('wallet.accountNumber')} dir="ltr" autoComplete="off" value={bank.accountNumber} onChange={(e) => setBank({ ...bank, accountNumber: e.target.value })} />
              <Field label={t('wallet.bankName')} autoComplete="off" value={bank.bankName} onChange={(e) => setBank({ ...bank, bankName: e.target.value })} error={errors.bank} />
            </>
          )}
          <Field
            label={t('wallet.amount')}
            inputMode="decimal"
            autoComplete="off"
            value={amount}
            onChange={(e) => setAmount(e.target.value)}
            error={errors.amount}
            hint={t('wallet.withdraw.limits', { min: money(info.minAmount), max: money(info.maxAmount), available: money(info.available) })}
            after={
              <button type="button" className="btn btn-ghost btn-small" onClick={() => setAmount(info.available)}>
                {t('wallet.withdraw.all')}
              </button>
            }
          />
          <dl className="fee-preview" aria-live="polite">
            <div>
              <dt>{t('wallet.withdraw.fee')}</dt>
              <dd className="num" data-testid="withdraw-fee">
                {preview ? `${money(preview.fee)} USDT` : '--'}
              </dd>
            </div>
            <div>
              <dt>{t('wallet.withdraw.actual')}</dt>
              <dd className="num" data-testid="withdraw-actual">
                {preview ? `${money(preview.actual)} USDT` : '--'}
              </dd>
            </div>
          </dl>
          {info.requiresTwoFactor && (
            <Field label={t('wallet.totp')} inputMode="numeric" autoComplete="one-time-code" maxLength={6} value={totp} onChange={(e) => setTotp(e.target.value)} error={errors.totp} />
          )}
          <p className="muted small">{t('wallet.withdraw.passwordNotice')}</p>
          <FormError text={request.error} />
          <button type="submit" className="btn btn-primary btn-block" disabled={request.busy || blocked}>
            {t('wallet.withdraw.submit')}
          </button>
        </form>
      )}
    </Dialog>
  );
}
