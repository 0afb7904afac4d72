/** The websocket's address: `/ws` on this host, with the language the server answers in. */
import { requestLanguage } from './i18n';

export function socketUrl(): string {
  const scheme = window.location.protocol === 'https:' ? 'wss' : 'ws';
  return `${scheme}://${window.location.host}/ws?language=${encodeURIComponent(requestLanguage())}`;
}
