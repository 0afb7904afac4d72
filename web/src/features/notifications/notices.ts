/**
 * System notices in the trader's app: a notice is written for every language (`lang` empty)
 * or for the users whose app is in one language, and may be withdrawn by an admin later.
 */
import type { StoredNotification } from './db';

/** A notice as the websocket's `notice` frame and `GET /api/notices` carry it. */
export interface Notice {
  id: number;
  title: string;
  body: string;
  /** '' for every language, else the one language whose users see it. */
  lang: string;
  time: number;
}

/** Is a notice for an app in `appLanguage`? */
export function noticeIsFor(notice: Pick<Notice, 'lang'>, appLanguage: string): boolean {
  return !notice.lang || notice.lang === appLanguage;
}

/** The notification centre's id of a notice: removed by that id when it is withdrawn. */
export const noticeItemId = (id: number) => `notice-${id}`;

export function noticeNotification(notice: Notice): StoredNotification {
  return {
    id: noticeItemId(notice.id),
    type: 'system',
    priority: 'low',
    title: notice.title,
    message: notice.body,
    lang: notice.lang || undefined,
    time: notice.time,
    read: false,
  };
}
