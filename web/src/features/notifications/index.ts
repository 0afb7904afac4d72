/** The notification centre: bell, dialog, and the feed from the private stream. */
export { NotificationBell } from './components/notification-bell';
export { NotificationDialog } from './components/notification-dialog';
export { useNotificationFeed } from './hooks/use-notification-feed';
export { NotificationSettings } from './components/notification-settings';
export { NoticeModal } from './components/notice-modal';
