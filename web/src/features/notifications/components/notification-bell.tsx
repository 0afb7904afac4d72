/** The header's bell with the unread count (99+ at most). */
import { useTranslation } from 'react-i18next';

import { BellIcon } from '@/components/icons';

import { unreadCount, useNotifications } from '../stores/notifications';

export const BADGE_MAX = 99;

export function badgeText(count: number): string {
  return count > BADGE_MAX ? `${BADGE_MAX}+` : String(count);
}

export function NotificationBell() {
  const { t } = useTranslation();
  const unread = useNotifications((s) => unreadCount(s.items));
  const setOpen = useNotifications((s) => s.setOpen);
  return (
    <button
      type="button"
      className="icon-button"
      aria-label={unread > 0 ? t('notifications.bellUnread', { count: unread }) : t('notifications.title')}
      aria-haspopup="dialog"
      onClick={() => setOpen(true)}
    >
      <BellIcon />
      {unread > 0 && (
        <span className="badge" aria-hidden="true" data-testid="unread-badge">
          {badgeText(unread)}
        </span>
      )}
    </button>
  );
}
