/**
 * The header (spec §2): site name (home), the main navigation on desktop, the real/demo
 * switch with its balance, connection state, language, customer service, notifications
 * and the avatar menu, or a guest avatar leading to /login.
 */
import { useTranslation } from 'react-i18next';
import { Link, useLocation } from 'react-router';

import { AccountIcon, HeadsetIcon } from '@/components/icons';
import { LanguageSwitcher } from '@/components/language-switcher';
import { NotificationBell } from '@/features/notifications';
import { useDevice } from '@/stores/device';
import { useSession } from '@/stores/session';
import { DEFAULT_SITE_NAME, useSite, useSupportHours } from '@/stores/site';

import { AccountSwitch } from './account-switch';
import { AvatarMenu } from './avatar-menu';
import { ConnectionDot } from './connection';
import { headerNavItems } from './nav-items';


function CustomerService() {
  const { t } = useTranslation();
  const service = useSite((s) => s.info?.customerService);
  const desktop = useDevice((s) => s.deviceClass === 'desktop');
  const hours = useSupportHours();
  if (!service?.enabled || !service.serviceLink) return null;
  const shown = hours && `${hours} UTC`;
  const label = shown ? t('header.serviceHours', { hours: shown }) : t('header.customerService');
  return (
    <button
      type="button"
      className="header-service"
      aria-label={label}
      title={label}
      onClick={() => window.open(service.serviceLink, '_blank', 'noopener,noreferrer')}
    >
      <HeadsetIcon />
      {desktop && shown && <span className="header-service-hours num">{shown}</span>}
    </button>
  );
}

function DesktopNav() {
  const { t } = useTranslation();
  const { pathname } = useLocation();
  return (
    <nav className="header-nav" aria-label={t('nav.main')}>
      {headerNavItems().map(({ key, to, label, match }) => {
        const current = pathname.startsWith(match);
        return (
          <Link key={key} to={to} className={current ? 'header-nav-item active' : 'header-nav-item'} aria-current={current ? 'page' : undefined}>
            {t(label)}
          </Link>
        );
      })}
    </nav>
  );
}

export function Header() {
  const { t } = useTranslation();
  const siteName = useSite((s) => s.info?.siteName) || DEFAULT_SITE_NAME;
  const signedIn = useSession((s) => s.token !== null);
  const desktop = useDevice((s) => s.deviceClass === 'desktop');
  return (
    <header className="header">
      <Link to="/" className="header-brand" aria-label={t('header.home', { site: siteName })}>
        {siteName}
      </Link>
      {desktop && <DesktopNav />}
      <div className="header-tools">
        {signedIn && <AccountSwitch />}
        <ConnectionDot />
        <LanguageSwitcher compact={!desktop} />
        <CustomerService />
        {signedIn && <NotificationBell />}
        {signedIn ? (
          <AvatarMenu />
        ) : (
          <Link to="/login" className="icon-button guest-avatar" aria-label={t('header.guest')}>
            <AccountIcon />
          </Link>
        )}
      </div>
    </header>
  );
}
