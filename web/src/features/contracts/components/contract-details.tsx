/**
 * One contract in full: order number, amount, opening and closing price and time, duration,
 * direction, state, profit or loss, and the log indexes of the entry and exit ticks, so the
 * result can be checked against the stored prices. A contract sold back before expiry also
 * lists the sale's figures: the offer paid, the chance of winning it was priced at, the payout
 * a win would have paid, the spread and the tick used. A copy (copy trading) says whose order it
 * copied, linked to that trader's profile.
 */
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';

import { type DetailRow, DetailList } from '@/components/detail-list';
import { Dialog } from '@/components/dialog';
import { ErrorState, Spinner } from '@/components/states';
import { errorMessage } from '@/lib/api-client';
import { formatCountdown, formatDateTime, formatDuration, formatMoney, formatRate } from '@/lib/format';
import { millionths } from '@/lib/sale';

import { type ContractRecord, recordsApi } from '../api';
import { outcomeKey } from './contract-records';

export function ContractDetails({ id, onClose }: { id: number; onClose(): void }) {
  const { t, i18n } = useTranslation();
  const [record, setRecord] = useState<ContractRecord | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [reload, setReload] = useState(0);

  useEffect(() => {
    let live = true;
    setError(null);
    recordsApi
      .get(id)
      .then((r) => live && setRecord(r))
      .catch((e: unknown) => live && setError(errorMessage(e, 'records.loadFailed')));
    return () => {
      live = false;
    };
  }, [id, reload]);

  const lang = i18n.language;
  const profit = record?.profit ?? null;
  const rows: DetailRow[] = record
    ? [
        { label: t('records.orderNo'), value: String(record.id) },
        { label: t('records.symbol'), value: record.symbol },
        { label: t('records.account'), value: t(`header.${record.account}`), text: true },
        { label: t('records.direction'), value: t(`records.${record.direction}`), tone: record.direction, text: true },
        { label: t('records.amount'), value: `${formatMoney(record.stake, lang)} USDT` },
        { label: t('records.fee'), value: `${formatMoney(record.fee, lang)} USDT` },
        { label: t('records.payoutRate'), value: formatRate(record.payoutRate, lang) },
        { label: t('records.duration'), value: formatDuration(record.duration, t), text: true },
        { label: t('records.openPrice'), value: record.entry?.price ?? '--' },
        { label: t('records.openTime'), value: formatDateTime(record.entry?.time, lang), text: true },
        { label: t('records.entryTick'), value: record.entry ? `#${record.entry.sequence}` : '--' },
        { label: t('records.closePrice'), value: record.exit?.price ?? '--' },
        { label: t('records.closeTime'), value: formatDateTime(record.exit?.time, lang), text: true },
        { label: t('records.exitTick'), value: record.exit ? `#${record.exit.sequence}` : '--' },
        { label: t('records.state'), value: t(outcomeKey(record)), text: true },
        {
          label: t('records.profit'),
          value: profit === null ? '--' : `${formatMoney(profit, lang, true)} USDT`,
          tone: profit === null ? undefined : profit.startsWith('-') ? 'down' : 'up',
        },
      ]
    : [];

  const sale = record?.sale ?? null;
  const saleRows: DetailRow[] = sale
    ? [
        { label: t('records.sale.offer'), value: `${formatMoney(sale.offer, lang)} USDT`, tone: 'up' },
        { label: t('records.sale.probability'), value: formatRate(millionths(sale.probability), lang) },
        { label: t('records.sale.winCredit'), value: `${formatMoney(sale.winCredit, lang)} USDT` },
        { label: t('records.sale.fair'), value: `${formatMoney(sale.fair, lang)} USDT` },
        { label: t('records.sale.spread'), value: formatRate(sale.spread, lang) },
        { label: t('records.sale.price'), value: sale.tick.price },
        { label: t('records.sale.time'), value: formatDateTime(sale.tick.time, lang), text: true },
        { label: t('records.sale.tick'), value: `#${sale.tick.sequence}` },
        { label: t('records.sale.timeLeft'), value: formatCountdown(sale.timeLeftMs) },
      ]
    : [];

  return (
    <Dialog open title={t('records.details')} onClose={onClose}>
      {error ? (
        <ErrorState text={error} onRetry={() => setReload((n) => n + 1)} />
      ) : !record ? (
        <Spinner />
      ) : (
        <>
          {record.copiedFrom ? (
            <p className="copy-mark-line">
              <Link to={`/copy/${record.copiedFrom}`} className="pill pill-copy" onClick={onClose}>
                {t('records.copiedFrom', { uid: record.copiedFrom })}
              </Link>
            </p>
          ) : null}
          <DetailList rows={rows} testId="contract-details" />
          {sale && (
            <>
              <h3 className="confirm-rules-title">{t('records.sale.title')}</h3>
              <DetailList rows={saleRows} testId="sale-details" />
            </>
          )}
          {record.outcome && (
            <p className="proof-link">
              <a href={`/api/proofs/${record.id}`} target="_blank" rel="noopener noreferrer">
                {t('records.proof')}
              </a>
              <span className="muted"> · {t('records.proofHint')}</span>
            </p>
          )}
        </>
      )}
    </Dialog>
  );
}
