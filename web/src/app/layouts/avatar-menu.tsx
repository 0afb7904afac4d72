/**
 * The avatar menu: profile, tournaments, copy trading, settings, and logout (hidden for wallet users, spec
 * §2: their session follows the wallet). Closed by Escape or a click elsewhere.
 */
import { useCallback, useId, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';

import { Avatar } from '@/components/avatar';
import { signOutUser } from '@/features/auth';
import { useDismiss } from '@/lib/use-dismiss';
import { useSession } from '@/stores/session';

import { COPY_NAV, TOURNAMENTS_NAV } from './nav-items';

export function AvatarMenu() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const user = useSession((s) => s.user);
  const [open, setOpen] = useState(false);
  const menuId = useId();
  const root = useRef<HTMLDivElement>(null);

  useDismiss(open, root, useCallback(() => setOpen(false), []));

  const go = (to: string) => {
    setOpen(false);
    navigate(to);
  };
  const name = user?.nickname || user?.username || '';
  return (
    <div className="avatar-menu" ref={root}>
      <button
        type="button"
        className="icon-button"
        aria-label={t('header.userMenu')}
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={menuId}
        onClick={() => setOpen((v) => !v)}
      >
        <Avatar name={name} src={user?.avatar || undefined} />
      </button>
      {open && (
        <div id={menuId} role="menu" className="menu">
          <div className="menu-user">
            <strong>{name}</strong>
            <span className="muted num">UID {user?.uid}</span>
          </div>
          <button type="button" role="menuitem" className="menu-item" onClick={() => go('/account/profile')}>
            {t('header.profile')}
          </button>
          <button type="button" role="menuitem" className="menu-item" onClick={() => go(TOURNAMENTS_NAV.to)}>
            {t(TOURNAMENTS_NAV.label)}
          </button>
          <button type="button" role="menuitem" className="menu-item" onClick={() => go(COPY_NAV.to)}>
            {t(COPY_NAV.label)}
          </button>
          <button type="button" role="menuitem" className="menu-item" onClick={() => go('/account/security')}>
            {t('header.settings')}
          </button>
          {user?.loginType !== 'wallet' && (
            <button
              type="button"
              role="menuitem"
              className="menu-item"
              onClick={() => {
                setOpen(false);
                void signOutUser();
              }}
            >
              {t('header.logout')}
            </button>
          )}
        </div>
      )}
    </div>
  );
}
