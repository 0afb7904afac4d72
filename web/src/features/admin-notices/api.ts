/** System notices: broadcast to every user, and the list users see. */
import { adminApi } from '@/lib/admin-api';
import type { Page } from '@/lib/api-client';

export interface Notice {
  id: number;
  title: string;
  body: string;
  time: number;
}

export const NOTICE_TITLE_MAX = 100;
export const NOTICE_BODY_MAX = 2000;
export const NOTICES_PAGE_SIZE = 20;

export const fetchNotices = (page: number, signal?: AbortSignal) =>
  adminApi.get<Page<Notice>>('/notices', { query: { page, pageSize: NOTICES_PAGE_SIZE }, signal });

export const broadcast = (title: string, body: string) => adminApi.post('/admin/notices', { title, body });

/** The catalogue keys of what is wrong with a notice. */
export function checkNotice(title: string, body: string): { title?: string; body?: string } {
  const errors: { title?: string; body?: string } = {};
  if (!title.trim()) errors.title = 'admin.notices.titleRequired';
  else if ([...title.trim()].length > NOTICE_TITLE_MAX) errors.title = 'admin.notices.titleLong';
  if (!body.trim()) errors.body = 'admin.notices.bodyRequired';
  else if ([...body.trim()].length > NOTICE_BODY_MAX) errors.body = 'admin.notices.bodyLong';
  return errors;
}
