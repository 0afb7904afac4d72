/**
 * One contract in full: order number, amount, opening and closing price and time, duration,
 * direction, state, profit or loss, and the log indexes of the entry and exit ticks, so the
 * result can be checked against the stored prices.
 */
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';

import { type DetailRow, DetailList } from '@/components/detail-list';
import { Dialog } from '@/components/dialog';
import { ErrorState, Spinner } from '@/components/states';
import { errorMessage } from '@/lib/api-client';
import { formatDateTime, formatDuration, formatMoney, formatRate } from '@/lib/format';

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
  const rows: DetailRow[] = record
    ? [
        [t('records.orderNo'), String(record.id)],
        [t('records.symbol'), record.symbol],
        [t('records.account'), t(`header.${record.account}`)],
        [t('records.direction'), t(`records.${record.direction}`), record.direction],
        [t('records.amount'), `${formatMoney(record.stake, lang)} USDT`],
        [t('records.fee'), `${formatMoney(record.fee, lang)} USDT`],
        [t('records.payoutRate'), formatRate(record.payoutRate, lang)],
        [t('records.duration'), formatDuration(record.duration, t)],
        [t('records.openPrice'), record.entry?.price ?? '--'],
        [t('records.openTime'), formatDateTime(record.entry?.time, lang)],
        [t('records.entryTick'), record.entry ? `#${record.entry.sequence}` : '--'],
        [t('records.closePrice'), record.exit?.price ?? '--'],
        [t('records.closeTime'), formatDateTime(record.exit?.time, lang)],
        [t('records.exitTick'), record.exit ? `#${record.exit.sequence}` : '--'],
        [t('records.state'), t(outcomeKey(record))],
        [
          t('records.profit'),
          record.profit === null ? '--' : `${formatMoney(record.profit, lang, true)} USDT`,
          record.profit === null ? undefined : record.profit.startsWith('-') ? 'down' : 'up',
        ],
      ]
    : [];

  return (
    <Dialog open title={t('records.details')} onClose={onClose}>
      {error ? (
        <ErrorState text={error} onRetry={() => setReload((n) => n + 1)} />
      ) : !record ? (
        <Spinner />
      ) : (
        <DetailList rows={rows} testId="contract-details" />
      )}
    </Dialog>
  );
}
