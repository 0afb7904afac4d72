/**
 * The user's contracts on this market as they live (spec §4): waiting for entry, in progress
 * with a countdown on the server's clock and the running result against the current price,
 * waiting for settlement, then "Order settled: Profit" or "Loss" with the amount in USDT.
 * While it runs, its early-close offer (decisions §11) as a Sell button, or why there is none.
 * A copy of a trader's order (copy trading) is marked with the trader's UID.
 */
import { useTranslation } from 'react-i18next';

import { CloseIcon } from '@/components/icons';
import { SellAction } from '@/components/sell-contract';
import { compare, multiply } from '@/lib/decimal';
import { formatCountdown, formatDecimal, formatMoney } from '@/lib/format';

import { refreshContracts } from '../hooks/use-contract-feed';
import { useServerNow } from '@/lib/use-server-now';
import type { LiveContract } from '../stores/contracts';
import { useContracts } from '../stores/contracts';

/** Winning, losing or even against the current price, with the amount at stake. */
function runningResult(c: LiveContract, price: string | null) {
  if (!c.entryPrice || !price) return null;
  const move = compare(price, c.entryPrice);
  if (move === 0) return { tone: 'even' as const, amount: '0' };
  const winning = (c.direction === 'up' && move > 0) || (c.direction === 'down' && move < 0);
  return winning ? { tone: 'winning' as const, amount: multiply(c.amount, c.payoutRate) } : { tone: 'losing' as const, amount: c.amount };
}

function ContractCard({ contract, price, precision, now }: { contract: LiveContract; price: string | null; precision: number; now: number }) {
  const { t, i18n } = useTranslation();
  const dismiss = useContracts((s) => s.dismiss);
  const offer = useContracts((s) => s.offers[contract.id]);
  const money = (v: string) => formatMoney(v, i18n.language);
  const settled = contract.status === 'settled' || contract.status === 'void';
  const remaining = contract.expiresAt !== null ? contract.expiresAt - now : null;

  let state: string;
  if (contract.status === 'waiting_entry') state = t('trade.live.waitingEntry');
  else if (!settled && remaining !== null && remaining <= 0) state = t('trade.live.waitingSettlement');
  else if (!settled) state = t('trade.live.inProgress');
  else if (contract.status === 'void') state = t('trade.live.settledVoid');
  else if (contract.outcome === 'sold') state = t('trade.live.settledSold', { amount: money(contract.credited ?? '0') });
  else if (contract.result === 'profit') state = t('trade.live.settledProfit', { amount: money(contract.resultAmount ?? '0') });
  else if (contract.result === 'loss') state = t('trade.live.settledLoss', { amount: money(contract.resultAmount ?? '0') });
  else state = t('trade.live.settledTie');

  const running = !settled ? runningResult(contract, price) : null;
  const progress = remaining !== null && contract.duration > 0 ? Math.min(1, Math.max(0, 1 - remaining / (contract.duration * 1000))) : 0;
  const tone = settled ? (contract.result === 'profit' ? 'win' : contract.result === 'loss' ? 'loss' : 'even') : '';
  return (
    <li className={`contract-card ${tone}`} data-testid={`contract-${contract.id}`} data-status={contract.status}>
      <div className="contract-card-top">
        <span className={`pill ${contract.direction === 'up' ? 'pill-up' : 'pill-down'}`}>{t(`trade.confirm.${contract.direction}`)}</span>
        <span className="num">{money(contract.amount)} USDT</span>
        <span className="muted">{t(`header.${contract.account}`)}</span>
        <span className="muted num">#{contract.id}</span>
        {settled && (
          <button type="button" className="icon-button contract-dismiss" aria-label={t('trade.live.dismiss')} onClick={() => dismiss(contract.id)}>
            <CloseIcon width={16} height={16} />
          </button>
        )}
      </div>
      {contract.copiedFrom !== null && <span className="pill pill-copy">{t('trade.live.copiedFrom', { uid: contract.copiedFrom })}</span>}
      <div className="contract-state" role="status">
        {state}
      </div>
      {!settled && contract.status === 'open' && remaining !== null && (
        <>
          <div className="contract-progress" aria-hidden="true">
            <span style={{ inlineSize: `${progress * 100}%` }} />
          </div>
          <dl className="contract-figures">
            <div>
              <dt>{t('trade.live.remaining')}</dt>
              <dd className="num">{formatCountdown(Math.max(0, remaining))}</dd>
            </div>
            <div>
              <dt>{t('trade.live.entry')}</dt>
              <dd className="num">{contract.entryPrice ? formatDecimal(contract.entryPrice, i18n.language, precision) : '--'}</dd>
            </div>
            <div>
              <dt>{t('trade.live.current')}</dt>
              <dd className="num">{price ? formatDecimal(price, i18n.language, precision) : '--'}</dd>
            </div>
            {running && (
              <div>
                <dt>{t(`trade.live.${running.tone}`)}</dt>
                <dd className={`num ${running.tone === 'winning' ? 'up' : running.tone === 'losing' ? 'down' : ''}`}>
                  {running.tone === 'winning' ? '+' : running.tone === 'losing' ? '−' : ''}
                  {money(running.amount)}
                </dd>
              </div>
            )}
          </dl>
          {remaining > 0 && <SellAction contractId={contract.id} offer={offer} onLost={refreshContracts} />}
        </>
      )}
    </li>
  );
}

export function LiveContracts({ symbol, price, precision }: { symbol: string; price: string | null; precision: number }) {
  const { t } = useTranslation();
  const all = useContracts((s) => s.byId);
  const contracts = Object.values(all)
    .filter((c) => c.symbol === symbol)
    .sort((a, b) => b.id - a.id);
  const ticking = contracts.some((c) => c.status === 'open' || c.status === 'waiting_entry');
  const now = useServerNow(250, ticking);
  if (contracts.length === 0) return null;
  return (
    <section className="live-contracts" aria-labelledby="live-contracts-title">
      <h2 id="live-contracts-title" className="section-title">
        {t('trade.live.title')}
      </h2>
      <ul>
        {contracts.map((c) => (
          <ContractCard key={c.id} contract={c} price={price} precision={precision} now={now} />
        ))}
      </ul>
    </section>
  );
}
