/**
 * System notices in the trader's app: a notice is written for every language (`lang` empty)
 * or for the users whose app is in one language, and may be withdrawn by an admin later.
 */
import type { NoticeFrame } from '@/lib/ws-frames';
import type { NoticeRow } from '@/types/api';

import type { StoredNotification } from './db';

/**
 * A notice as the websocket's `notice` frame or `GET /api/notices` carries it: `lang` is ''
 * (or absent) for every language, else the one language whose users see it.
 */
export type Notice = NoticeFrame | NoticeRow;

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
