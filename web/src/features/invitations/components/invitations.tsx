/**
 * My invitations (spec §2 and §3, decisions §5): the invitation link and code with copy
 * buttons, a QR code of the link, the team over generations 1, 2 and 3 (people, certified,
 * not certified), the reward rules, and the rewards earned so far.
 */
import { QRCodeSVG } from 'qrcode.react';
import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';

import { CopyButton } from '@/components/copy-button';
import { ErrorState, SkeletonRows } from '@/components/states';
import { errorMessage } from '@/lib/api-client';
import { formatMoney, formatRate } from '@/lib/format';

import { type Generation, type Invite, invitationsApi, inviteLink } from '../api';

interface Loaded {
  invite: Invite;
  team: Generation[];
  earned: string;
}

export function Invitations() {
  const { t, i18n } = useTranslation();
  const [data, setData] = useState<Loaded | null>(null);
  const [error, setError] = useState<string | null>(null);

  const load = useCallback(async () => {
    setError(null);
    try {
      const [invite, team, rewards] = await Promise.all([invitationsApi.invite(), invitationsApi.team(), invitationsApi.rewards()]);
      setData({ invite, team, earned: rewards.totalIn });
    } catch (e) {
      setError(errorMessage(e, 'errors.fetchInvitation'));
    }
  }, []);
  useEffect(() => void load(), [load]);

  if (error) return <ErrorState text={error} onRetry={() => void load()} />;
  if (!data) return <SkeletonRows rows={5} columns={2} />;
  const link = inviteLink(data.invite, window.location.origin);
  const lang = i18n.language;
  return (
    <section className="invitations" aria-labelledby="invite-title">
      <h1 id="invite-title" className="page-title">
        {t('invite.title')}
      </h1>
      <div className="card invite-card">
        <div className="invite-qr">
          <QRCodeSVG value={link} title={t('invite.qr')} size={168} marginSize={2} bgColor="#ffffff" fgColor="#0b0e14" />
        </div>
        <dl className="detail-pairs invite-pairs">
          <div>
            <dt>{t('invite.code')}</dt>
            <dd>
              <strong className="invite-code ltr" data-testid="invite-code">
                {data.invite.code}
              </strong>
              <CopyButton text={data.invite.code} label={t('invite.code')} />
            </dd>
          </div>
          <div>
            <dt>{t('invite.link')}</dt>
            <dd>
              <span className="ltr break" data-testid="invite-link">
                {link}
              </span>
              <CopyButton text={link} label={t('invite.link')} />
            </dd>
          </div>
        </dl>
      </div>
      <div className="card">
        <h2 className="section-title">{t('invite.team')}</h2>
        <table className="team-table">
          <thead>
            <tr>
              <th scope="col">{t('invite.generation')}</th>
              <th scope="col">{t('invite.people')}</th>
              <th scope="col">{t('invite.certified')}</th>
              <th scope="col">{t('invite.notCertified')}</th>
            </tr>
          </thead>
          <tbody>
            {data.team.map((g) => (
              <tr key={g.generation} data-testid={`generation-${g.generation}`}>
                <th scope="row">{t('invite.generationN', { n: g.generation })}</th>
                <td className="num">{g.count}</td>
                <td className="num">{g.certified}</td>
                <td className="num">{g.notCertified}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <div className="card">
        <h2 className="section-title">{t('invite.rules')}</h2>
        <ul className="invite-rules">
          {data.invite.rewardRates.map((rate, i) => (
            <li key={i}>{t('invite.rule', { n: i + 1, rate: formatRate(rate, lang) })}</li>
          ))}
        </ul>
        <p className="muted small">{t('invite.rulesNote')}</p>
        <div className="invite-earned">
          <span className="muted">{t('invite.earned')}</span>
          <strong className="num" data-testid="invite-earned">
            {formatMoney(data.earned, lang)} USDT
          </strong>
        </div>
      </div>
    </section>
  );
}
