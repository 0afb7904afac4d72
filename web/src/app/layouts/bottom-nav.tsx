import { useTranslation } from 'react-i18next';
import { Link, useLocation } from 'react-router';

import { navItems } from './nav-items';

/** The bottom navigation of phones and tablets. */
export function BottomNav() {
  const { t } = useTranslation();
  const { pathname } = useLocation();
  return (
    <nav className="bottom-nav" aria-label={t('nav.main')}>
      {navItems().map(({ key, to, label, Icon, match }) => {
        const current = pathname.startsWith(match);
        return (
          <Link key={key} to={to} className={current ? 'bottom-nav-item active' : 'bottom-nav-item'} aria-current={current ? 'page' : undefined}>
            <Icon />
            <span>{t(label)}</span>
          </Link>
        );
      })}
    </nav>
  );
}
