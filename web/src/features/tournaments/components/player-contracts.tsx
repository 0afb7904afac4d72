/**
 * A player's contracts in a tournament (public): each with its entry and exit ticks and what
 * it paid, so that anyone can re-derive the player's balance, and the table, from the prices.
 */
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';

import { Dialog } from '@/components/dialog';
import { Pager } from '@/components/pager';
import { EmptyState, ErrorState, SkeletonRows } from '@/components/states';
import { type Page, errorMessage } from '@/lib/api-client';
import { formatDateTime, formatDecimal, formatDuration, formatMoney } from '@/lib/format';
import type { ContractRow } from '@/types/api';

import { type Standing, tournamentsApi } from '../api';

export function PlayerContracts({ tournament, player, onClose }: { tournament: number; player: Standing; onClose(): void }) {
  const { t, i18n } = useTranslation();
  const lang = i18n.language;
  const [page, setPage] = useState(1);
  const [rows, setRows] = useState<Page<ContractRow> | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    let live = true;
    setError(null);
    tournamentsApi
      .contracts(tournament, player.uid, page)
      .then((read) => live && setRows(read))
      .catch((e: unknown) => live && setError(errorMessage(e, 'tournaments.loadFailed')));
    return () => {
      live = false;
    };
  }, [tournament, player.uid, page, attempt]);

  // A tick: its price at the product's precision, and its place in the log.
  const tick = (value: ContractRow['entry']) => {
    if (!value) return '--';
    const digits = value.price.split('.')[1]?.length ?? 0;
    return `${formatDecimal(value.price, lang, digits)} · #${value.sequence}`;
  };
  return (
    <Dialog open title={t('tournaments.contractsOf', { name: player.name })} onClose={onClose} className="dialog-wide">
      {error && !rows ? (
        <ErrorState text={error} onRetry={() => setAttempt((n) => n + 1)} />
      ) : !rows ? (
        <SkeletonRows rows={4} columns={5} />
      ) : rows.items.length === 0 ? (
        <EmptyState text={t('tournaments.noContracts')} />
      ) : (
        <div className="table-scroll">
          <table className="team-table tournament-contracts">
            <thead>
              <tr>
                <th scope="col">{t('tournaments.contract.product')}</th>
                <th scope="col">{t('tournaments.contract.stake')}</th>
                <th scope="col">{t('tournaments.contract.ticks')}</th>
                <th scope="col">{t('tournaments.contract.result')}</th>
              </tr>
            </thead>
            <tbody>
              {rows.items.map((c) => (
                <tr key={c.id}>
                  <td>
                    <span className="num">#{c.id}</span> {c.symbol}
                    <div className="muted small">
                      {t(`tournaments.contract.${c.direction}`)} · {formatDuration(c.duration, t)}
                    </div>
                    <div className="muted small">{formatDateTime(c.acceptedAt, lang)}</div>
                  </td>
                  <td>
                    <span className="num">{formatMoney(c.stake, lang)}</span>
                  </td>
                  <td>
                    <div className="small">
                      <span className="muted">{t('tournaments.contract.entry')}</span> <span className="num">{tick(c.entry)}</span>
                    </div>
                    <div className="small">
                      <span className="muted">{t('tournaments.contract.exit')}</span> <span className="num">{tick(c.exit)}</span>
                    </div>
                  </td>
                  <td>
                    <span className="num">{c.credited == null ? t('tournaments.contract.open') : formatMoney(c.credited, lang)}</span>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {rows && <Pager page={page} total={rows.total} pageSize={20} onPage={setPage} />}
    </Dialog>
  );
}
