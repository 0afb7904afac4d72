/**
 * My copy trading: the switch that shares my trades (with what it means), the traders I copy
 * (their settings, Edit and Stop, and a link to my copied trades: the contract records with
 * their filter on copies, linked by path as features do not import each other) and my
 * followers (the wallet their copies go to, and Remove: their stakes and stop level are theirs
 * alone). Stopping, removing and ending the sharing while someone copies me are asked first; a
 * refusal (sharing full, ...) is told in the server's words.
 */
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';

import { ErrorState, SkeletonRows } from '@/components/states';
import { errorMessage } from '@/lib/api-client';
import { toast } from '@/stores/toast';

import type { CopyLink, FollowerLink, MyCopy } from '../api';
import { useMyCopy } from '../stores/my-copy';
import { ConfirmDialog } from '@/components/confirm-dialog';
import { formatDay, settingsText } from './figures';
import { FollowDialog } from './follow-dialog';

/** The contract records showing only copies of other traders' orders (the records' own filter). */
const MY_COPIES = '/contract-record?copied=true';

type Asking = { kind: 'stop'; link: CopyLink } | { kind: 'remove'; link: FollowerLink } | { kind: 'unshare' } | null;

function SharingSwitch({ mine, onUnshare }: { mine: MyCopy; onUnshare(): void }) {
  const { t, i18n } = useTranslation();
  const [busy, setBusy] = useState(false);
  const flip = async () => {
    if (mine.sharing && mine.followers.length > 0) {
      onUnshare();
      return;
    }
    setBusy(true);
    try {
      await useMyCopy.getState().setSharing(!mine.sharing);
      toast.success(t(mine.sharing ? 'copyTrading.sharingOff' : 'copyTrading.sharingOn'));
    } catch (e) {
      toast.error(errorMessage(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="switch-row copy-sharing">
      <div>
        <div>{t('copyTrading.share')}</div>
        <p id="copy-share-hint" className="muted small">
          {t('copyTrading.shareHint')}
        </p>
        {mine.sharing && mine.sharingSince ? <p className="muted small">{t('copyTrading.sharingSince', { date: formatDay(mine.sharingSince, i18n.language) })}</p> : null}
      </div>
      <button
        type="button"
        role="switch"
        aria-checked={mine.sharing}
        aria-label={t('copyTrading.share')}
        aria-describedby="copy-share-hint"
        className="switch"
        disabled={busy}
        onClick={() => void flip()}
      >
        <span className="switch-knob" aria-hidden="true" />
      </button>
    </div>
  );
}

export function MyCopyTrading({ mine, error, reload }: { mine: MyCopy | null; error: string | null; reload(): void }) {
  const { t, i18n } = useTranslation();
  const [asking, setAsking] = useState<Asking>(null);
  const [editing, setEditing] = useState<CopyLink | null>(null);
  const lang = i18n.language;

  let body;
  if (error && !mine) body = <ErrorState text={error} onRetry={reload} />;
  else if (!mine) body = <SkeletonRows rows={3} columns={2} />;
  else
    body = (
      <>
        <SharingSwitch mine={mine} onUnshare={() => setAsking({ kind: 'unshare' })} />
        <section className="copy-links" aria-labelledby="copy-following-title">
          <h3 id="copy-following-title" className="copy-links-title">
            {t('copyTrading.following')} <span className="muted small num">{t('copyTrading.count', { count: mine.following.length, max: mine.followingMax })}</span>
          </h3>
          {mine.following.length === 0 ? (
            <p className="muted small">{t('copyTrading.followingNone')}</p>
          ) : (
            <ul className="plain-list">
              {mine.following.map((link) => (
                <li key={link.uid} className="copy-link-row">
                  <div className="copy-link-text">
                    <Link to={`/copy/${link.uid}`} dir="auto">
                      {link.name}
                    </Link>{' '}
                    <span className="muted small">{t('copyTrading.since', { date: formatDay(link.since, lang) })}</span>
                    <div className="muted small">{settingsText(link.settings, t, lang)}</div>
                  </div>
                  <div className="copy-link-actions">
                    <button type="button" className="btn btn-small btn-secondary" aria-label={t('copyTrading.editLabel', { name: link.name })} onClick={() => setEditing(link)}>
                      {t('copyTrading.edit')}
                    </button>
                    <button type="button" className="btn btn-small btn-ghost" aria-label={t('copyTrading.stopLabel', { name: link.name })} onClick={() => setAsking({ kind: 'stop', link })}>
                      {t('copyTrading.stop')}
                    </button>
                  </div>
                </li>
              ))}
            </ul>
          )}
          <p className="copy-links-more">
            <Link to={MY_COPIES}>{t('copyTrading.myCopies')}</Link>
          </p>
        </section>
        <section className="copy-links" aria-labelledby="copy-followers-title">
          <h3 id="copy-followers-title" className="copy-links-title">
            {t('copyTrading.followersTitle')} <span className="muted small num">{t('copyTrading.count', { count: mine.followers.length, max: mine.followersMax })}</span>
          </h3>
          {mine.followers.length === 0 ? (
            <p className="muted small">{t(mine.sharing ? 'copyTrading.followersNone' : 'copyTrading.followersNotSharing')}</p>
          ) : (
            <ul className="plain-list">
              {mine.followers.map((link) => (
                <li key={link.uid} className="copy-link-row">
                  <div className="copy-link-text">
                    <span dir="auto">{link.name}</span>{' '}
                    <span className="muted small">{t('copyTrading.since', { date: formatDay(link.since, lang) })}</span>
                    <div className="muted small">{t('copyTrading.followerOn', { account: t(`header.${link.account}`) })}</div>
                  </div>
                  <div className="copy-link-actions">
                    <button type="button" className="btn btn-small btn-ghost" aria-label={t('copyTrading.removeLabel', { name: link.name })} onClick={() => setAsking({ kind: 'remove', link })}>
                      {t('copyTrading.remove')}
                    </button>
                  </div>
                </li>
              ))}
            </ul>
          )}
        </section>
      </>
    );

  return (
    <section className="card my-copy" aria-labelledby="my-copy-title">
      <h2 id="my-copy-title" className="section-title">
        {t('copyTrading.mine')}
      </h2>
      {body}
      {editing && <FollowDialog leader={editing} current={editing.settings} onClose={() => setEditing(null)} />}
      {asking?.kind === 'stop' && (
        <ConfirmDialog
          title={t('copyTrading.confirmStopTitle', { name: asking.link.name })}
          text={t('copyTrading.confirmStopText', { name: asking.link.name })}
          confirm={t('copyTrading.stopCopying')}
          onConfirm={async () => {
            await useMyCopy.getState().unfollow(asking.link.uid);
            toast.success(t('copyTrading.stopped', { name: asking.link.name }));
          }}
          onClose={() => setAsking(null)}
        />
      )}
      {asking?.kind === 'remove' && (
        <ConfirmDialog
          title={t('copyTrading.confirmRemoveTitle', { name: asking.link.name })}
          text={t('copyTrading.confirmRemoveText', { name: asking.link.name })}
          confirm={t('copyTrading.remove')}
          onConfirm={async () => {
            await useMyCopy.getState().removeFollower(asking.link.uid);
            toast.success(t('copyTrading.removed', { name: asking.link.name }));
          }}
          onClose={() => setAsking(null)}
        />
      )}
      {asking?.kind === 'unshare' && (
        <ConfirmDialog
          title={t('copyTrading.confirmUnshareTitle')}
          text={t('copyTrading.confirmUnshareText', { count: mine?.followers.length ?? 0 })}
          confirm={t('copyTrading.confirmUnshare')}
          onConfirm={async () => {
            await useMyCopy.getState().setSharing(false);
            toast.success(t('copyTrading.sharingOff'));
          }}
          onClose={() => setAsking(null)}
        />
      )}
    </section>
  );
}
