/**
 * The tournaments lobby (`/tournaments`): running, upcoming and finished tournaments, and,
 * signed in, mine with my place and result (the tab kept in the address, `?tab=upcoming`),
 * each with its prize pool, entry fee, players and clock, leading to its page.
 */
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router';

import { EmptyState, ErrorState, SkeletonRows } from '@/components/states';
import { Tabs } from '@/components/tabs';
import { formatMoney } from '@/lib/format';
import { useServerNow } from '@/lib/use-server-now';
import { useSession } from '@/stores/session';

import { LOBBY_TABS, type LobbyTab, type MyTournament, type TournamentSummary, tabOf } from '../api';
import { useLobby } from '../hooks/use-lobby';
import { Clock, StatusPill, feeText } from './figures';

function tabFrom(value: string | null, signedIn: boolean): LobbyTab {
  return LOBBY_TABS.find((t) => t === value && (signedIn || t !== 'mine')) ?? 'running';
}

function TournamentCard({ tournament, now, mine }: { tournament: TournamentSummary; now: number; mine?: MyTournament }) {
  const { t, i18n } = useTranslation();
  const lang = i18n.language;
  return (
    <li className="card tournament-card">
      <div className="tournament-card-head">
        <Link to={`/tournaments/${tournament.id}`} className="tournament-title" aria-label={t('tournaments.open', { title: tournament.rules.title })}>
          <span dir="auto">{tournament.rules.title}</span>
        </Link>
        <StatusPill status={tournament.status} />
      </div>
      <dl className="tournament-figures">
        <div>
          <dt>{t('tournaments.pool')}</dt>
          <dd>
            <span className="num">{t('tournaments.usdt', { amount: formatMoney(tournament.pool, lang) })}</span>
          </dd>
        </div>
        <div>
          <dt>{t('tournaments.entryFee')}</dt>
          <dd>{feeText(tournament.rules.entryFee, t, lang)}</dd>
        </div>
        <div>
          <dt>{t('tournaments.players')}</dt>
          <dd>
            <span className="num">{tournament.players}</span>
          </dd>
        </div>
        {mine && (
          <div>
            <dt>{tournament.status === 'finished' ? t('tournaments.finalPlace') : t('tournaments.myPlace')}</dt>
            <dd>{t('tournaments.placeOf', { place: mine.me.place, players: tournament.players })}</dd>
          </div>
        )}
      </dl>
      <Clock tournament={tournament} now={now} />
    </li>
  );
}

export function TournamentLobby() {
  const { t } = useTranslation();
  const [params, setParams] = useSearchParams();
  const signedIn = useSession((s) => s.token !== null);
  const tab = tabFrom(params.get('tab'), signedIn);
  const { list, mine, error, reload } = useLobby();
  const now = useServerNow(1_000);
  const byId = new Map(mine.map((m) => [m.tournament.id, m]));
  const shown = tab === 'mine' ? mine.map((m) => m.tournament) : (list?.filter((x) => tabOf(x.status) === tab) ?? []);
  const tabs = LOBBY_TABS.filter((key) => signedIn || key !== 'mine');
  const choose = (next: LobbyTab) =>
    setParams(
      (p) => {
        const nextParams = new URLSearchParams(p);
        nextParams.set('tab', next);
        return nextParams;
      },
      { replace: true },
    );
  return (
    <div className="tournaments-page">
      <div className="copy-head">
        <h1 className="page-title">{t('tournaments.title')}</h1>
        <p className="muted small">{t('tournaments.intro')}</p>
      </div>
      <section aria-labelledby="lobby-title">
        <h2 id="lobby-title" className="sr-only">
          {t('tournaments.lobby')}
        </h2>
        <Tabs className="tabs-pills" label={t('tournaments.lobby')} value={tab} onChange={choose} items={tabs.map((key) => ({ key, label: t(`tournaments.tabs.${key}`) }))} />
        {error && !list ? (
          <ErrorState text={error} onRetry={reload} />
        ) : !list ? (
          <SkeletonRows rows={3} columns={3} />
        ) : shown.length === 0 ? (
          <EmptyState text={t(`tournaments.empty.${tab}`)} />
        ) : (
          <ul className="tournament-list">
            {shown.map((x) => (
              <TournamentCard key={x.id} tournament={x} now={now} mine={byId.get(x.id)} />
            ))}
          </ul>
        )}
      </section>
    </div>
  );
}
