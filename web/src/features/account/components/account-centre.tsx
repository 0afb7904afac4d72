/**
 * The account centre (spec §2): who is signed in (UID, name), the chosen account's balances,
 * the money actions (composed in by the route: Deposit, Withdraw, Transfer, Bill; for the demo
 * account, its reset), links to the wallet and the transaction history, language, and
 * sign-out with a confirmation.
 */
import { type ReactNode, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';

import { Avatar } from '@/components/avatar';
import { Dialog } from '@/components/dialog';
import { LanguageSwitcher } from '@/components/language-switcher';
import { formatMoney, formatPercent } from '@/lib/format';
import { useSubmit } from '@/lib/use-submit';
import { useSession } from '@/stores/session';
import { accountsOf, useWallet } from '@/stores/wallet';

import { AboutAndService } from './about-and-service';

interface AccountCentreProps {
  onSignOut(): Promise<void>;
  /** The money actions for the real account. */
  actions?: ReactNode;
  /** What the demo account offers instead (its reset). */
  demo?: ReactNode;
}

export function AccountCentre({ onSignOut, actions, demo }: AccountCentreProps) {
  const { t, i18n } = useTranslation();
  const user = useSession((s) => s.user);
  const account = useWallet((s) => s.account);
  const setAccount = useWallet((s) => s.setAccount);
  const balances = useWallet((s) => s.balances);
  const balance = balances[account];
  const [confirming, setConfirming] = useState(false);
  // The route's sign-out ends the session here whatever the server answers: no failure to show.
  const signingOut = useSubmit();
  if (!user) return null;
  const money = (v: string | undefined) => (v === undefined ? '--' : formatMoney(v, i18n.language));
  const name = user.nickname || user.username;
  return (
    <section className="account" aria-labelledby="account-title">
      <div className="account-head card">
        <Avatar name={name} src={user.avatar || undefined} size={56} />
        <div>
          <h1 id="account-title" className="page-title">
            {name}
          </h1>
          <div className="muted num">
            {t('account.uid')}: {user.uid}
          </div>
        </div>
      </div>
      <div className="card account-balance">
        <div className="account-balance-top">
          <span className="muted">{t('account.available')}</span>
          <div role="group" aria-label={t('header.accountSwitch')} className="chart-types">
            {accountsOf(balances).map((kind) => (
              <button key={kind} type="button" className="chip chip-small" aria-pressed={account === kind} onClick={() => setAccount(kind)}>
                {t(`header.${kind}`)}
              </button>
            ))}
          </div>
        </div>
        <div className="account-available num" data-testid="available-balance">
          {money(balance?.available)} <small>USDT</small>
        </div>
        <dl className="account-figures">
          <div>
            <dt>{t('account.total')}</dt>
            <dd className="num">{money(balance?.total)}</dd>
          </div>
          <div>
            <dt>{t('account.inPosition')}</dt>
            <dd className="num">{money(balance?.inPosition)}</dd>
          </div>
          <div>
            <dt>{t('account.frozen')}</dt>
            <dd className="num">{money(balance?.frozen)}</dd>
          </div>
          <div>
            <dt>{t('account.change24h')}</dt>
            <dd className={`num ${balance?.change24h.startsWith('-') ? 'down' : 'up'}`}>
              {balance ? `${formatMoney(balance.change24h, i18n.language, true)} (${formatPercent(balance.change24hPercent, i18n.language)})` : '--'}
            </dd>
          </div>
        </dl>
      </div>
      {account === 'real' ? actions : account === 'demo' ? demo : null}
      <nav className="card account-list" aria-label={t('account.more')}>
        <Link to="/account/wallet" className="account-item account-link">
          {t('account.wallet')}
        </Link>
        <Link to="/account/history" className="account-item account-link">
          {t('account.history')}
        </Link>
        <Link to="/account/profile" className="account-item account-link">
          {t('account.profile')}
        </Link>
        <Link to="/account/security" className="account-item account-link">
          {t('account.security')}
        </Link>
        <Link to="/account/notifications" className="account-item account-link">
          {t('account.notifications')}
        </Link>
        <Link to="/account/price-alerts" className="account-item account-link">
          {t('account.priceAlerts')}
        </Link>
        <Link to="/account/responsible-trading" className="account-item account-link">
          {t('account.responsible')}
        </Link>
        <Link to="/account/invitations" className="account-item account-link">
          {t('account.invitations')}
        </Link>
        <Link to="/copy" className="account-item account-link">
          {t('nav.copy')}
        </Link>
        <AboutAndService />
      </nav>
      <div className="card account-list">
        <div className="account-item">
          <span>{t('header.language')}</span>
          <LanguageSwitcher />
        </div>
        {user.loginType === 'wallet' ? (
          <p className="muted account-item">{t('account.walletSignOut')}</p>
        ) : (
          <button type="button" className="btn btn-ghost btn-block" onClick={() => setConfirming(true)}>
            {t('account.signOut')}
          </button>
        )}
      </div>
      <Dialog open={confirming} title={t('account.signOut')} onClose={() => setConfirming(false)}>
        <p>{t('account.signOutConfirm')}</p>
        <div className="dialog-actions">
          <button type="button" className="btn btn-secondary" onClick={() => setConfirming(false)}>
            {t('app.cancel')}
          </button>
          <button
            type="button"
            className="btn btn-primary"
            disabled={signingOut.busy}
            onClick={() => void signingOut.run(onSignOut)}
          >
            {t('account.signOut')}
          </button>
        </div>
      </Dialog>
    </section>
  );
}
