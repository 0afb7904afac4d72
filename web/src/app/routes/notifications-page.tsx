import { NotificationSettings } from '@/features/notifications';

/** `/account/notifications` (chunk NotificationsPage): the six notification switches. */
export function Component() {
  return (
    <div className="page page-narrow">
      <NotificationSettings />
    </div>
  );
}
