/**
 * Tournaments (decisions §11): drafts written here, then published (players see them and may
 * enter; the rules are fixed from then on, and the house holds the guaranteed pool aside) or
 * cancelled before their start (every fee refunded). Nothing here touches a result: the table
 * follows from the prices.
 */
import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';

import { ConfirmDialog } from '@/components/confirm-dialog';
import { EmptyState, ErrorState, SkeletonRows } from '@/components/states';
import { errorMessage } from '@/lib/api-client';
import { formatDateTime, formatMoney } from '@/lib/format';
import { adminCan, useAdminSession } from '@/stores/admin-session';
import { toast } from '@/stores/toast';

import { type AdminTournament, cancelTournament, fetchTournaments, publishTournament } from '../api';
import { TournamentDialog } from './tournament-dialog';

type Acting = { kind: 'publish' | 'cancel'; tournament: AdminTournament } | null;

export function TournamentsPage() {
  const { t, i18n } = useTranslation();
  const lang = i18n.language;
  const canAct = useAdminSession((s) => adminCan(s.admin, 'rules:write'));
  const [list, setList] = useState<AdminTournament[] | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [reload, setReload] = useState(0);
  const [editing, setEditing] = useState<AdminTournament | 'new' | null>(null);
  const [acting, setActing] = useState<Acting>(null);

  useEffect(() => {
    const controller = new AbortController();
    setFailure(null);
    fetchTournaments(controller.signal)
      .then(setList)
      .catch((e: unknown) => {
        if (!controller.signal.aborted) setFailure(errorMessage(e));
      });
    return () => controller.abort();
  }, [reload]);
  const again = useCallback(() => setReload((n) => n + 1), []);

  return (
    <div className="admin-page">
      <h1 className="page-title">{t('admin.nav.tournaments')}</h1>
      <p className="admin-card admin-note">{t('admin.tournaments.about')}</p>
      {canAct && (
        <button type="button" className="btn btn-primary admin-add" onClick={() => setEditing('new')}>
          {t('admin.tournaments.new')}
        </button>
      )}
      {failure ? (
        <ErrorState text={failure} onRetry={again} />
      ) : !list ? (
        <SkeletonRows rows={5} columns={6} />
      ) : list.length === 0 ? (
        <EmptyState text={t('admin.tournaments.none')} />
      ) : (
        <div className="admin-card admin-table-wrap">
          <table className="admin-table">
            <thead>
              <tr>
                <th scope="col">{t('admin.tournaments.fields.title')}</th>
                <th scope="col">{t('admin.tournaments.status')}</th>
                <th scope="col">{t('admin.tournaments.window')}</th>
                <th scope="col">{t('admin.tournaments.fields.entryFee')}</th>
                <th scope="col">{t('admin.tournaments.players')}</th>
                <th scope="col">{t('admin.tournaments.pool')}</th>
                {canAct && <th scope="col">{t('admin.rules.actions')}</th>}
              </tr>
            </thead>
            <tbody>
              {list.map((x) => {
                const title = x.rules.title;
                const cancellable = x.status === 'draft' || x.status === 'upcoming';
                return (
                  <tr key={x.id}>
                    <th scope="row">
                      <span dir="auto">{title}</span> <span className="muted num">#{x.id}</span>
                    </th>
                    <td>{t(`admin.tournaments.states.${x.status}`)}</td>
                    <td>
                      <span className="num">{formatDateTime(x.rules.startAt, lang)}</span>
                      <div className="muted">
                        <span className="num">{formatDateTime(x.rules.endAt, lang)}</span>
                      </div>
                    </td>
                    <td className="num">{formatMoney(x.rules.entryFee, lang)}</td>
                    <td className="num">{x.players}</td>
                    <td className="num">{formatMoney(x.pool, lang)}</td>
                    {canAct && (
                      <td className="admin-row-actions">
                        {x.status === 'draft' && (
                          <>
                            <button type="button" className="btn btn-small btn-secondary" aria-label={t('admin.tournaments.editOne', { title })} onClick={() => setEditing(x)}>
                              {t('admin.tournaments.edit')}
                            </button>
                            <button type="button" className="btn btn-small btn-primary" aria-label={t('admin.tournaments.publishOne', { title })} onClick={() => setActing({ kind: 'publish', tournament: x })}>
                              {t('admin.tournaments.publish')}
                            </button>
                          </>
                        )}
                        {cancellable && (
                          <button type="button" className="btn btn-small btn-secondary" aria-label={t('admin.tournaments.cancelOne', { title })} onClick={() => setActing({ kind: 'cancel', tournament: x })}>
                            {t('admin.tournaments.cancel')}
                          </button>
                        )}
                        {!cancellable && <span className="muted">—</span>}
                      </td>
                    )}
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      {editing && (
        <TournamentDialog
          draft={editing === 'new' ? null : editing}
          onClose={() => setEditing(null)}
          onSaved={() => {
            setEditing(null);
            toast.success(t('admin.tournaments.saved'));
            again();
          }}
        />
      )}
      {acting && (
        <ConfirmDialog
          title={t(`admin.tournaments.${acting.kind}Title`, { title: acting.tournament.rules.title })}
          text={t(`admin.tournaments.${acting.kind}Explain`, { pool: formatMoney(acting.tournament.rules.poolMin, lang) })}
          confirm={t(`admin.tournaments.${acting.kind}`)}
          onConfirm={async () => {
            await (acting.kind === 'publish' ? publishTournament : cancelTournament)(acting.tournament.id);
            toast.success(t(`admin.tournaments.${acting.kind}Done`, { title: acting.tournament.rules.title }));
            again();
          }}
          onClose={() => setActing(null)}
        />
      )}
    </div>
  );
}
