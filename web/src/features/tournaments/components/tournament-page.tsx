/**
 * A tournament's page (`/tournaments/:id`): its clock, prizes and rules, my entry (join for the
 * fee, my place and balance, a rebuy while allowed, a way to trade it), and the standings,
 * live over the websocket, with each player's contracts to check them by; the final table once
 * finished.
 */
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router';

import { ConfirmDialog } from '@/components/confirm-dialog';
import { ErrorState, SkeletonRows } from '@/components/states';
import { formatMoney } from '@/lib/format';
import { useServerNow } from '@/lib/use-server-now';
import { useSession } from '@/stores/session';
import { toast } from '@/stores/toast';
import { useWallet } from '@/stores/wallet';

import { type MyTournament, type Standing, type TournamentDetail, tournamentsApi } from '../api';
import { useTournament } from '../hooks/use-tournament';
import { Clock, Prizes, RulesList, StatusPill, feeText, isPaid } from './figures';
import { PlayerContracts } from './player-contracts';

function NotFound() {
  const { t } = useTranslation();
  return (
    <div className="empty-state">
      <h1 className="page-title">{t('tournaments.notFound')}</h1>
      <Link to="/tournaments" className="btn btn-secondary">
        {t('tournaments.backToLobby')}
      </Link>
    </div>
  );
}

type Asking = 'join' | 'rebuy' | null;

/** My part: sign in, join, or my place with a rebuy and a way to trade the tournament balance. */
function MyEntry({ detail, mine, onChanged }: { detail: TournamentDetail; mine: MyTournament | null; onChanged(next: MyTournament[]): void }) {
  const { t, i18n } = useTranslation();
  const lang = i18n.language;
  const navigate = useNavigate();
  const signedIn = useSession((s) => s.token !== null);
  const [asking, setAsking] = useState<Asking>(null);
  const { tournament } = detail;
  const { rules, status } = tournament;
  const open = status === 'upcoming' || status === 'running';

  if (!signedIn) {
    return (
      <Link to="/login" className="btn btn-primary btn-block">
        {t('tournaments.signInToPlay')}
      </Link>
    );
  }
  const act = async (kind: 'join' | 'rebuy') => {
    const next = await (kind === 'join' ? tournamentsApi.join(tournament.id) : tournamentsApi.rebuy(tournament.id));
    onChanged(next);
    void useWallet.getState().load().catch(() => undefined);
    toast.success(t(kind === 'join' ? 'tournaments.joined' : 'tournaments.rebought', { title: rules.title }));
  };
  const dialog = asking && (
    <ConfirmDialog
      title={t(asking === 'join' ? 'tournaments.confirmJoinTitle' : 'tournaments.confirmRebuyTitle', { title: rules.title })}
      text={t(asking === 'join' ? 'tournaments.confirmJoinText' : 'tournaments.confirmRebuyText', {
        fee: feeText(asking === 'join' ? rules.entryFee : rules.rebuyFee, t, lang),
        balance: formatMoney(rules.startBalance, lang),
      })}
      confirm={t(asking === 'join' ? 'tournaments.join' : 'tournaments.rebuy')}
      onConfirm={() => act(asking)}
      onClose={() => setAsking(null)}
    />
  );
  if (!mine) {
    return open ? (
      <>
        <button type="button" className="btn btn-primary btn-block" onClick={() => setAsking('join')}>
          {isPaid(rules.entryFee) ? t('tournaments.joinFor', { fee: feeText(rules.entryFee, t, lang) }) : t('tournaments.joinFree')}
        </button>
        {dialog}
      </>
    ) : (
      <p className="muted">{t('tournaments.notEntered')}</p>
    );
  }
  const { me } = mine;
  const canRebuy = status === 'running' && mine.rebuysLeft > 0 && Number(me.balance) < Number(rules.rebuyBelow);
  const trade = () => {
    useWallet.getState().setAccount('tournament');
    navigate(`/trade/${rules.symbols[0] ?? ''}`);
  };
  return (
    <div className="tournament-entry" data-testid="my-entry">
      <dl className="tournament-figures">
        <div>
          <dt>{status === 'finished' ? t('tournaments.finalPlace') : t('tournaments.myPlace')}</dt>
          <dd>{t('tournaments.placeOf', { place: me.place, players: tournament.players })}</dd>
        </div>
        <div>
          <dt>{t('tournaments.myBalance')}</dt>
          <dd>
            <span className="num">{formatMoney(me.balance, lang)}</span>
          </dd>
        </div>
        <div>
          <dt>{status === 'finished' ? t('tournaments.won') : t('tournaments.prizeNow')}</dt>
          <dd>
            <span className="num">{t('tournaments.usdt', { amount: formatMoney(me.prize, lang) })}</span>
          </dd>
        </div>
        {rules.rebuysMax > 0 && status !== 'finished' && (
          <div>
            <dt>{t('tournaments.rebuysLeft')}</dt>
            <dd>
              <span className="num">{mine.rebuysLeft}</span>
            </dd>
          </div>
        )}
      </dl>
      {status === 'running' && (
        <div className="tournament-actions">
          <button type="button" className="btn btn-primary" onClick={trade}>
            {t('tournaments.trade')}
          </button>
          {canRebuy && (
            <button type="button" className="btn btn-secondary" onClick={() => setAsking('rebuy')}>
              {t('tournaments.rebuyFor', { fee: feeText(rules.rebuyFee, t, lang) })}
            </button>
          )}
        </div>
      )}
      {status === 'upcoming' && <p className="muted small">{t('tournaments.waitStart')}</p>}
      {dialog}
    </div>
  );
}

function Standings({ detail, me, onPlayer }: { detail: TournamentDetail; me: number | null; onPlayer(s: Standing): void }) {
  const { t, i18n } = useTranslation();
  const lang = i18n.language;
  const finished = detail.tournament.status === 'finished';
  return (
    <div className="table-scroll">
      <table className="team-table tournament-standings" data-testid="standings">
        <caption className="sr-only">{finished ? t('tournaments.finalTable') : t('tournaments.standings')}</caption>
        <thead>
          <tr>
            <th scope="col">{t('tournaments.placeHead')}</th>
            <th scope="col">{t('tournaments.player')}</th>
            <th scope="col">{t('tournaments.balance')}</th>
            <th scope="col">{finished ? t('tournaments.wonUsdt') : t('tournaments.prizeNowUsdt')}</th>
            <th scope="col">
              <span className="sr-only">{t('tournaments.contracts')}</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {detail.standings.map((s) => (
            <tr key={s.uid} className={s.uid === me ? 'tournament-me' : undefined} aria-current={s.uid === me ? 'true' : undefined}>
              <td>
                <span className="num">{s.place}</span>
              </td>
              <td>
                <span className="tournament-player">
                  <span dir="auto">{s.name}</span> <span className="muted small num">#{s.uid}</span>
                  {s.uid === me && <span className="pill pill-copy">{t('tournaments.you')}</span>}
                </span>
              </td>
              <td>
                <span className="num">{formatMoney(s.balance, lang)}</span>
              </td>
              <td>
                <span className="num">{formatMoney(s.prize, lang)}</span>
              </td>
              <td className="tournament-row-action">
                <button type="button" className="btn btn-small btn-ghost" aria-label={t('tournaments.contractsOf', { name: s.name })} onClick={() => onPlayer(s)}>
                  {t('tournaments.contracts')}
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function TournamentPage({ id }: { id: number | null }) {
  const { t, i18n } = useTranslation();
  const state = useTournament(id ?? 0);
  const now = useServerNow(1_000);
  const uid = useSession((s) => s.user?.uid ?? null);
  const [player, setPlayer] = useState<Standing | null>(null);
  if (id === null || state.missing) return <NotFound />;
  const { detail, mine } = state;
  if (state.error && !detail) return <ErrorState text={state.error} onRetry={state.reload} />;
  if (!detail) return <SkeletonRows rows={6} columns={4} />;
  const { tournament } = detail;
  return (
    <section className="tournament-page stack" aria-labelledby="tournament-title">
      <Link to="/tournaments" className="muted small trader-back">
        {t('tournaments.backToLobby')}
      </Link>
      <div className="card tournament-head">
        <div className="tournament-card-head">
          <h1 id="tournament-title" className="page-title" dir="auto">
            {tournament.rules.title}
          </h1>
          <StatusPill status={tournament.status} />
        </div>
        <Clock tournament={tournament} now={now} />
        <dl className="tournament-figures">
          <div>
            <dt>{t('tournaments.pool')}</dt>
            <dd>
              <span className="num">{t('tournaments.usdt', { amount: formatMoney(tournament.pool, i18n.language) })}</span>
            </dd>
          </div>
          <div>
            <dt>{t('tournaments.players')}</dt>
            <dd>
              <span className="num">{tournament.players}</span>
            </dd>
          </div>
        </dl>
      </div>
      <div className="card">
        <MyEntry detail={detail} mine={mine} onChanged={(next) => (state.setMine(next.find((m) => m.tournament.id === id) ?? null), state.reload())} />
      </div>
      <div className="card">
        <h2 className="section-title">{tournament.status === 'finished' ? t('tournaments.finalTable') : t('tournaments.standings')}</h2>
        {detail.standings.length === 0 ? <p className="muted">{t('tournaments.noPlayers')}</p> : <Standings detail={detail} me={uid} onPlayer={setPlayer} />}
        {tournament.status === 'running' && <p className="muted small">{t('tournaments.liveNote')}</p>}
      </div>
      <div className="card">
        <h2 className="section-title">{t('tournaments.prizes')}</h2>
        {Number(tournament.pool) > 0 ? <Prizes prizes={tournament.prizes} /> : <p className="muted">{t('tournaments.noPrizes')}</p>}
      </div>
      <div className="card">
        <h2 className="section-title">{t('tournaments.rulesTitle')}</h2>
        <RulesList rules={tournament.rules} />
      </div>
      {player && <PlayerContracts tournament={tournament.id} player={player} onClose={() => setPlayer(null)} />}
    </section>
  );
}
