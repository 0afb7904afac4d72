/**
 * How a new notification announces itself: a short tone (lib/tone.ts), and for high priority
 * a desktop notification when the user has granted permission, closed after 5 s.
 */
export { playTone } from '@/lib/tone';

export const DESKTOP_CLOSE_MS = 5_000;

export function desktopPermission(): NotificationPermission | 'unsupported' {
  return typeof Notification === 'undefined' ? 'unsupported' : Notification.permission;
}

export async function askDesktopPermission(): Promise<NotificationPermission | 'unsupported'> {
  if (typeof Notification === 'undefined') return 'unsupported';
  return Notification.requestPermission();
}

export function showDesktop(title: string, body: string): void {
  if (desktopPermission() !== 'granted') return;
  try {
    const note = new Notification(title, { body, tag: `${title}-${body}` });
    setTimeout(() => note.close(), DESKTOP_CLOSE_MS);
  } catch {
    // Some browsers only allow notifications from a service worker.
  }
}
