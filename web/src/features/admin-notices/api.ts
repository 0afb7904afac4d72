/**
 * System notices: broadcast to every user or to the users of one language, every notice sent
 * (withdrawn ones too), and withdrawing one.
 */
import { adminApi } from '@/lib/admin-api';
import type { Page } from '@/lib/api-client';
import { LANGUAGES } from '@/lib/i18n';
import type { NoticeRow } from '@/types/api';

/**
 * A notice sent: `lang` is the language it is written in and shown to ('' for every language),
 * `withdrawnAt` when it was withdrawn (ms), null while users see it.
 */
export type Notice = NoticeRow;

export const NOTICE_TITLE_MAX = 100;
export const NOTICE_BODY_MAX = 2000;
export const NOTICES_PAGE_SIZE = 20;

/** '' (every language) or one of the app's languages, as the server accepts them. */
export const NOTICE_LANGUAGES: readonly string[] = ['', ...LANGUAGES.map((l) => l.code)];

export const fetchNotices = (page: number, signal?: AbortSignal) =>
  adminApi.get<Page<Notice>>('/admin/notices', { query: { page, pageSize: NOTICES_PAGE_SIZE }, signal });

export const broadcast = (title: string, body: string, lang: string) => adminApi.post('/admin/notices', { title, body, lang });

export const withdrawNotice = (id: number) => adminApi.delete(`/admin/notices/${id}`);

/** The catalogue keys of what is wrong with a notice. */
export function checkNotice(title: string, body: string): { title?: string; body?: string } {
  const errors: { title?: string; body?: string } = {};
  if (!title.trim()) errors.title = 'admin.notices.titleRequired';
  else if ([...title.trim()].length > NOTICE_TITLE_MAX) errors.title = 'admin.notices.titleLong';
  if (!body.trim()) errors.body = 'admin.notices.bodyRequired';
  else if ([...body.trim()].length > NOTICE_BODY_MAX) errors.body = 'admin.notices.bodyLong';
  return errors;
}
