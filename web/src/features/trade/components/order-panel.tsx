/**
 * The order panel (spec §2, decisions §2): amount within the rule's limits, the durations of
 * the published rules, the expected return, Buy Up and Buy Down, then a confirm step that
 * states how the contract settles. One order per click: nothing can be sent while an order
 * is in flight, and an order is never sent again on its own; if the line drops mid-order, the
 * open contracts are read back instead.
 */
import { type FormEvent, useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';

import { ChevronIcon } from '@/components/icons';
import { ErrorState } from '@/components/states';
import { ApiError, errorMessage } from '@/lib/api-client';
import { compare, decimal, fractionDigits, multiply, winCredit } from '@/lib/decimal';
import { formatDuration, formatMoney, formatRate } from '@/lib/format';
import { useDevice } from '@/stores/device';
import { useSession } from '@/stores/session';
import { ws } from '@/lib/ws';
import { toast } from '@/stores/toast';
import { useWallet } from '@/stores/wallet';

import { type Rule, tradeApi } from '../api';
import { refreshContracts } from '../hooks/use-contract-feed';
import { useRules } from '../hooks/use-rules';
import { useContracts } from '../stores/contracts';
import { ConfirmOrder } from './confirm-order';

/** Quick amounts offered under the field. */
export const QUICK_AMOUNTS = ['10', '50', '100', '500'] as const;

export type Direction = 'up' | 'down';

export interface OrderDraft {
  direction: Direction;
  amount: string;
  rule: Rule;
}

interface OrderPanelProps {
  symbol: string;
  marketOpen: boolean;
  hasPrice: boolean;
}

/** The first rule the amount breaks, as a catalogue key with its values, or null. */
export function checkAmount(amount: string, rule: Rule | undefined, available: string | undefined) {
  const value = decimal(amount);
  if (!value || !value.gt(0) || fractionDigits(amount.trim()) > 2) return { key: 'trade.validation.amount' };
  if (!rule) return { key: 'trade.validation.duration' };
  if (compare(amount, rule.minAmount) < 0 || compare(amount, rule.maxAmount) > 0) {
    return { key: 'trade.validation.range', values: { min: rule.minAmount, max: rule.maxAmount } };
  }
  const fee = multiply(amount, rule.feeRate);
  if (available !== undefined && compare(value.plus(fee).toString(), available) > 0) return { key: 'trade.validation.balance' };
  return null;
}

export function OrderPanel({ symbol, marketOpen, hasPrice }: OrderPanelProps) {
  const { t, i18n } = useTranslation();
  const signedIn = useSession((s) => s.token !== null);
  const account = useWallet((s) => s.account);
  const available = useWallet((s) => s.balances[s.account]?.available);
  const { rules: published, error: rulesError, retry } = useRules();
  // On a tournament balance, only the durations the tournament allows.
  const allowed = useWallet((s) => (s.account === 'tournament' ? s.balances.tournament?.durations : null));
  const rules = allowed?.length ? published?.filter((r) => allowed.includes(r.duration)) : published;
  // Open beside the chart on a desktop; on a phone the panel is a bar at the bottom with the
  // buy buttons, opened to change the amount or duration.
  const [expanded, setExpanded] = useState(() => useDevice.getState().deviceClass === 'desktop');
  const [amount, setAmount] = useState('');
  const [duration, setDuration] = useState<number | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const [draft, setDraft] = useState<OrderDraft | null>(null);
  const [sending, setSending] = useState(false);
  const panelId = useId();
  const amountId = useId();

  const rule = rules?.find((r) => r.duration === (duration ?? rules[0]?.duration));
  const validAmount = decimal(amount) !== null && fractionDigits(amount.trim()) <= 2;
  const expected = rule && validAmount ? winCredit(amount, rule.payoutRate) : null;

  const buy = (direction: Direction) => {
    setMessage(null);
    if (!signedIn) {
      setMessage(t('auth.loginFirst'));
      return;
    }
    if (!hasPrice) {
      setMessage(t('trade.noPrice'));
      return;
    }
    const problem = checkAmount(amount, rule, available);
    if (problem) {
      setMessage(t(problem.key, problem.values));
      setExpanded(true);
      return;
    }
    setDraft({ direction, amount: amount.trim(), rule: rule! });
  };

  const confirm = async () => {
    if (!draft || sending) return;
    setSending(true);
    try {
      const accepted = await tradeApi.placeOrder({
        symbol,
        direction: draft.direction,
        amount: draft.amount,
        duration: draft.rule.duration,
        account,
      });
      // Shown at once; the private stream fills in the rest (or already did).
      useContracts.getState().accepted({
        contractId: accepted.contractId,
        symbol,
        account,
        direction: draft.direction,
        amount: draft.amount,
        fee: accepted.fee,
        payoutRate: draft.rule.payoutRate,
        duration: draft.rule.duration,
        acceptedAt: ws.serverNow(),
      });
      toast.success(t('trade.submitted'));
      setDraft(null);
    } catch (error) {
      const lost = error instanceof ApiError && (error.code === 'NETWORK' || error.code === 'TIMEOUT');
      // The order may have reached the server: look, never send it again.
      if (lost) refreshContracts();
      setMessage(lost ? t('trade.checkRecords') : errorMessage(error, 'trade.submitFailed'));
      setDraft(null);
    } finally {
      setSending(false);
    }
  };

  const submit = (event: FormEvent) => event.preventDefault();
  return (
    <section className="order-panel card" aria-labelledby={`${panelId}-title`}>
      <header className="order-panel-header">
        <h2 id={`${panelId}-title`}>{t('trade.panel.title')}</h2>
        <button
          type="button"
          className="icon-button"
          aria-expanded={expanded}
          aria-controls={panelId}
          aria-label={t('trade.panel.toggle')}
          onClick={() => setExpanded((v) => !v)}
        >
          <ChevronIcon className={expanded ? 'chevron-open' : ''} />
        </button>
      </header>
      {!expanded && rule && (
        <p className="order-summary muted">
          {amount ? `${amount} USDT · ` : ''}
          {formatDuration(rule.duration, t)} · {formatRate(rule.payoutRate, i18n.language)}
        </p>
      )}
      <form id={panelId} hidden={!expanded} onSubmit={submit} noValidate>
        {rulesError ? (
          <ErrorState text={rulesError} onRetry={() => void retry()} />
        ) : (
          <>
            <div className="field">
              <label htmlFor={amountId} className="field-label">
                {t('trade.panel.amount')}
              </label>
              <input
                id={amountId}
                className="input num"
                dir="ltr"
                inputMode="decimal"
                autoComplete="off"
                placeholder={rule ? t('trade.panel.range', { min: rule.minAmount, max: rule.maxAmount }) : ''}
                value={amount}
                onChange={(e) => setAmount(e.target.value.replace(',', '.'))}
              />
              <div className="quick-amounts">
                {QUICK_AMOUNTS.map((value) => (
                  <button key={value} type="button" className="chip chip-small" onClick={() => setAmount(value)}>
                    {value}
                  </button>
                ))}
              </div>
            </div>
            <div className="field">
              <span className="field-label" id={`${panelId}-durations`}>
                {t('trade.panel.duration')}
              </span>
              <div className="durations" role="radiogroup" aria-labelledby={`${panelId}-durations`}>
                {(rules ?? []).map((r) => (
                  <button
                    key={r.duration}
                    type="button"
                    role="radio"
                    aria-checked={r.duration === rule?.duration}
                    className="chip duration"
                    onClick={() => setDuration(r.duration)}
                  >
                    <span>{formatDuration(r.duration, t)}</span>
                    <small className="muted">{formatRate(r.payoutRate, i18n.language)}</small>
                  </button>
                ))}
              </div>
            </div>
            <dl className="order-figures">
              <div>
                <dt>{t('trade.panel.payout')}</dt>
                <dd className="num">{rule ? formatRate(rule.payoutRate, i18n.language) : '--'}</dd>
              </div>
              <div>
                <dt>{t('trade.panel.expectedReturn')}</dt>
                <dd className="num up">{expected ? `${formatMoney(expected, i18n.language)} USDT` : '--'}</dd>
              </div>
              {signedIn && (
                <div>
                  <dt>{t('trade.panel.available', { account: t(`header.${account}`) })}</dt>
                  <dd className="num">{available !== undefined ? `${formatMoney(available, i18n.language)} USDT` : '--'}</dd>
                </div>
              )}
            </dl>
          </>
        )}
      </form>
      {message && (
        <div className="form-error" role="alert">
          {message}
          {!signedIn && (
            <>
              {' '}
              <Link to="/login">{t('trade.loginToTrade')}</Link>
            </>
          )}
        </div>
      )}
      {!marketOpen && (
        <div className="form-note" role="status">
          {t('trade.marketClosed')}
        </div>
      )}
      {!rulesError && (
        <div className="buy-buttons">
          <button type="button" className="btn btn-up" disabled={!marketOpen || sending || !rules} onClick={() => buy('up')}>
            {t('trade.panel.buyUp')}
          </button>
          <button type="button" className="btn btn-down" disabled={!marketOpen || sending || !rules} onClick={() => buy('down')}>
            {t('trade.panel.buyDown')}
          </button>
        </div>
      )}
      {draft && <ConfirmOrder draft={draft} symbol={symbol} account={account} sending={sending} onCancel={() => setDraft(null)} onConfirm={() => void confirm()} />}
    </section>
  );
}
