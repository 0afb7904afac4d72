/** Teams: a user's referral tree over three generations, with counts and certified status. */
import { type FormEvent, useState } from 'react';
import { useTranslation } from 'react-i18next';

import { Field } from '@/components/field';
import { EmptyState, ErrorState, Spinner } from '@/components/states';
import { errorMessage } from '@/lib/api-client';
import { formatDateTime } from '@/lib/format';

import { type Generation, fetchTeam } from '../api';

export function TeamsPage() {
  const { t, i18n } = useTranslation();
  const [typed, setTyped] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [state, setState] = useState<{ uid: number; team: Generation[] | null; failure: string | null } | null>(null);

  const look = async (event: FormEvent) => {
    event.preventDefault();
    const text = typed.trim();
    if (!/^[1-9]\d{0,9}$/.test(text)) {
      setError(t('admin.trades.userInvalid'));
      return;
    }
    const uid = Number(text);
    setState({ uid, team: null, failure: null });
    try {
      setState({ uid, team: await fetchTeam(uid), failure: null });
    } catch (e) {
      setState({ uid, team: null, failure: errorMessage(e) });
    }
  };

  return (
    <div className="admin-page">
      <h1 className="page-title">{t('admin.nav.teams')}</h1>
      <form className="admin-card admin-search admin-team-search" onSubmit={(e) => void look(e)} noValidate role="search">
        <Field label={t('admin.teams.uid')} name="uid" inputMode="numeric" dir="ltr" value={typed} error={error} onChange={(e) => (setTyped(e.target.value), setError(undefined))} />
        <button type="submit" className="btn btn-primary">
          {t('admin.teams.show')}
        </button>
      </form>
      {state?.failure ? (
        <ErrorState text={state.failure} />
      ) : state && !state.team ? (
        <Spinner />
      ) : state?.team ? (
        state.team.every((g) => g.count === 0) ? (
          <EmptyState text={t('admin.teams.empty', { uid: state.uid })} />
        ) : (
          state.team.map((g) => (
            <section key={g.generation} className="admin-card" aria-label={t('admin.teams.generation', { n: g.generation })}>
              <h2 className="admin-card-title">
                {t('admin.teams.generation', { n: g.generation })} · {t('admin.teams.counts', { count: g.count, certified: g.certified, notCertified: g.notCertified })}
              </h2>
              <ul className="admin-user-contracts">
                {g.members.map((m) => (
                  <li key={m.uid}>
                    <span className="num">UID {m.uid}</span> <strong dir="auto">{m.username}</strong> <span className={m.certified ? 'up' : 'muted'}>{t(m.certified ? 'admin.teams.certified' : 'admin.teams.notCertified')}</span>{' '}
                    <span className="muted">{formatDateTime(m.joinTime, i18n.language)}</span>
                  </li>
                ))}
              </ul>
            </section>
          ))
        )
      ) : null}
    </div>
  );
}
