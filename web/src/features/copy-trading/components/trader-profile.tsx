/**
 * A trader's profile (`/copy/:uid`): their results over the last 24 hours, 7 days and 30 days
 * (real accounts only), their followers and since when they share. A signed-in user copies
 * them from here ("Copy this trader" opens the settings), or, when copying them already, sees
 * the settings, edits them or stops. A trader who does not share their trades has no profile.
 */
import { type ReactNode, useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';

import { ErrorState, SkeletonRows, Spinner } from '@/components/states';
import { ApiError, errorMessage } from '@/lib/api-client';
import { formatTime } from '@/lib/format';
import { toast } from '@/stores/toast';

import { type TraderProfile as Profile, type TraderStats, copyApi } from '../api';
import { useMyCopyView } from '../hooks/use-my-copy';
import { useMyCopy } from '../stores/my-copy';
import { ConfirmDialog } from '@/components/confirm-dialog';
import { Profit, WinRate, formatDay, settingsText } from './figures';
import { FollowDialog } from './follow-dialog';

const SPANS = [
  { key: 'day', label: 'copyTrading.periods.24h' },
  { key: 'week', label: 'copyTrading.periods.7d' },
  { key: 'month', label: 'copyTrading.periods.30d' },
] as const;

function StatsTable({ profile }: { profile: Profile }) {
  const { t } = useTranslation();
  const rows: Array<{ label: string; cell(s: TraderStats): ReactNode }> = [
    { label: t('copyTrading.profitUsdt'), cell: (s) => <Profit value={s.profit} /> },
    { label: t('copyTrading.winRate'), cell: (s) => <WinRate value={s.winRate} /> },
    { label: t('copyTrading.contracts'), cell: (s) => <span className="num">{s.contracts}</span> },
    { label: t('copyTrading.wins'), cell: (s) => <span className="num">{s.wins}</span> },
  ];
  return (
    <table className="trader-stats" data-testid="trader-stats">
      <caption className="sr-only">{t('copyTrading.results')}</caption>
      <thead>
        <tr>
          <td />
          {SPANS.map((s) => (
            <th key={s.key} scope="col">
              {t(s.label)}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={row.label}>
            <th scope="row">{row.label}</th>
            {SPANS.map((s) => (
              <td key={s.key}>{row.cell(profile[s.key])}</td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function NotCopyable() {
  const { t } = useTranslation();
  return (
    <div className="empty-state">
      <h1 className="page-title">{t('copyTrading.notCopyable')}</h1>
      <Link to="/copy" className="btn btn-secondary">
        {t('copyTrading.backToTop')}
      </Link>
    </div>
  );
}

export function TraderProfile({ uid }: { uid: number | null }) {
  const { t, i18n } = useTranslation();
  const [profile, setProfile] = useState<Profile | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [missing, setMissing] = useState(uid === null);
  const [editing, setEditing] = useState(false);
  const [stopping, setStopping] = useState(false);
  const me = useMyCopyView();
  const lang = i18n.language;

  const load = useCallback(async () => {
    if (uid === null) return;
    setError(null);
    try {
      setProfile(await copyApi.trader(uid));
    } catch (e) {
      if (e instanceof ApiError && (e.code === 'NOT_COPYABLE' || e.status === 404)) setMissing(true);
      else setError(errorMessage(e, 'copyTrading.loadFailed'));
    }
  }, [uid]);
  useEffect(() => {
    setProfile(null);
    setMissing(uid === null);
    void load();
  }, [uid, load]);

  if (missing) return <NotCopyable />;
  if (error && !profile) return <ErrorState text={error} onRetry={() => void load()} />;
  if (!profile) return <SkeletonRows rows={5} columns={4} />;

  const link = me.mine?.following.find((l) => l.uid === profile.uid) ?? null;
  const itsMe = me.uid === profile.uid;

  let action;
  if (!me.signedIn) {
    action = (
      <Link to="/login" className="btn btn-primary btn-block">
        {t('copyTrading.signInToCopy')}
      </Link>
    );
  } else if (itsMe) {
    action = <p className="muted">{t('copyTrading.itsYou')}</p>;
  } else if (me.error && !me.mine) {
    action = <ErrorState text={me.error} onRetry={me.reload} />;
  } else if (!me.mine) {
    action = <Spinner />;
  } else if (link) {
    action = (
      <div className="copy-current" data-testid="copy-current">
        <p>
          <strong>{t('copyTrading.youCopy')}</strong>
          <span className="muted small"> · {t('copyTrading.since', { date: formatDay(link.since, lang) })}</span>
        </p>
        <p className="muted small">{settingsText(link.settings, t, lang)}</p>
        <div className="copy-link-actions">
          <button type="button" className="btn btn-secondary" onClick={() => setEditing(true)}>
            {t('copyTrading.editSettings')}
          </button>
          <button type="button" className="btn btn-ghost" onClick={() => setStopping(true)}>
            {t('copyTrading.stopCopying')}
          </button>
        </div>
      </div>
    );
  } else {
    action = (
      <button type="button" className="btn btn-primary btn-block" onClick={() => setEditing(true)}>
        {t('copyTrading.copyThis')}
      </button>
    );
  }

  return (
    <section className="trader-profile stack" aria-labelledby="trader-title">
      <Link to="/copy" className="muted small trader-back">
        {t('copyTrading.backToTop')}
      </Link>
      <div className="card">
        <h1 id="trader-title" className="page-title">
          <span dir="auto">{profile.name}</span> <span className="muted small num">UID {profile.uid}</span>
        </h1>
        <dl className="detail-pairs trader-facts">
          <div>
            <dt>{t('copyTrading.followers')}</dt>
            <dd className="num">{profile.followers}</dd>
          </div>
          <div>
            <dt>{t('copyTrading.sharingSinceLabel')}</dt>
            <dd>{formatDay(profile.sharingSince, lang)}</dd>
          </div>
        </dl>
      </div>
      <div className="card">
        <h2 className="section-title">{t('copyTrading.results')}</h2>
        <StatsTable profile={profile} />
        <p className="muted small trader-refreshed">{t('copyTrading.refreshed', { time: formatTime(profile.refreshedAt, lang) })}</p>
      </div>
      <div className="card">{action}</div>
      {editing && <FollowDialog leader={profile} current={link?.settings ?? null} onClose={() => setEditing(false)} />}
      {stopping && link && (
        <ConfirmDialog
          title={t('copyTrading.confirmStopTitle', { name: profile.name })}
          text={t('copyTrading.confirmStopText', { name: profile.name })}
          confirm={t('copyTrading.stopCopying')}
          onConfirm={async () => {
            await useMyCopy.getState().unfollow(profile.uid);
            toast.success(t('copyTrading.stopped', { name: profile.name }));
          }}
          onClose={() => setStopping(false)}
        />
      )}
    </section>
  );
}
