import { act, screen } from '@testing-library/react';
import { beforeEach, vi } from 'vitest';

import { changeLanguage } from '@/lib/i18n';
import { mockApi } from '@/testing/api';
import { renderAt } from '@/testing/render';
import { useSession } from '@/stores/session';

import { NoticeModal } from './notice-modal';

/** The private stream's listeners, by frame type, as the modal registers them. */
const listeners = new Map<string, (frame: { type: string; data: unknown }) => void>();
vi.mock('@/lib/ws', () => ({
  useWsEvent: (type: string, listener: (frame: { type: string; data: unknown }) => void) => listeners.set(type, listener),
}));
const emit = (type: string, data: unknown) => act(() => listeners.get(type)!({ type, data }));

const TIME = 1_795_132_800_000;
const noticeOf = (id: number, lang: string, title = `Notice ${id}`) => ({ id, title, body: `Body ${id}`, lang, time: TIME + id });

beforeEach(() => {
  vi.unstubAllGlobals();
  listeners.clear();
  useSession.setState({ token: 't' });
});

test('a new notice is shown once as a modal; after it is closed it is not shown again', async () => {
  mockApi({ 'GET /api/notices': () => ({ data: { items: [{ id: 4, title: 'Maintenance', body: 'Sunday 02:00 UTC', lang: '', time: 1_795_132_800_000 }], total: 1 } }) });
  const { user, unmount } = renderAt(<NoticeModal />);
  expect(await screen.findByRole('dialog', { name: 'Maintenance' })).toHaveTextContent('Sunday 02:00 UTC');
  await user.click(screen.getByRole('button', { name: 'Got it' }));
  expect(screen.queryByRole('dialog')).toBeNull();
  expect(localStorage.getItem('noticeSeen')).toBe('1795132800000');
  unmount();
  const api = mockApi({ 'GET /api/notices': () => ({ data: { items: [{ id: 4, title: 'Maintenance', body: 'x', lang: '', time: 1_795_132_800_000 }], total: 1 } }) });
  renderAt(<NoticeModal />);
  await vi.waitFor(() => expect(api.count('GET /api/notices')).toBe(1));
  expect(screen.queryByRole('dialog')).toBeNull();
});

test('a live notice shows only when it is for every language or for the app language, in its own language', async () => {
  const api = mockApi({ 'GET /api/notices': () => ({ data: { items: [], total: 0 } }) });
  renderAt(<NoticeModal />);
  await vi.waitFor(() => expect(api.count('GET /api/notices')).toBe(1));
  emit('notice', noticeOf(1, 'de-DE'));
  expect(screen.queryByRole('dialog')).toBeNull();
  emit('notice', noticeOf(2, 'en-US', 'For English'));
  expect(screen.getByRole('dialog', { name: 'For English' })).toHaveTextContent('Body 2');
  expect(screen.getByText('Body 2')).toHaveAttribute('lang', 'en-US');
  expect(screen.getByText('Body 2')).toHaveAttribute('dir', 'auto');
  emit('notice', noticeOf(3, '', 'For everyone'));
  expect(screen.getByRole('dialog', { name: 'For everyone' })).toBeInTheDocument();

  await act(() => changeLanguage('de-DE'));
  try {
    emit('notice', noticeOf(4, 'de-DE', 'Für Deutsch'));
    expect(screen.getByRole('dialog', { name: 'Für Deutsch' })).toBeInTheDocument();
    emit('notice', noticeOf(5, 'en-US', 'English again'));
    expect(screen.getByRole('dialog', { name: 'Für Deutsch' })).toBeInTheDocument();
  } finally {
    await act(() => changeLanguage('en-US'));
  }
});

test('a withdrawn notice closes if it is the one shown; another withdrawal leaves it open', async () => {
  mockApi({ 'GET /api/notices': () => ({ data: { items: [noticeOf(7, '', 'Maintenance')], total: 1 } }) });
  renderAt(<NoticeModal />);
  expect(await screen.findByRole('dialog', { name: 'Maintenance' })).toBeInTheDocument();
  emit('noticeWithdrawn', { id: 6 });
  expect(screen.getByRole('dialog', { name: 'Maintenance' })).toBeInTheDocument();
  emit('noticeWithdrawn', { id: 7 });
  expect(screen.queryByRole('dialog')).toBeNull();
});
