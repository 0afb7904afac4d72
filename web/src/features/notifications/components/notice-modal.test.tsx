import { screen } from '@testing-library/react';
import { beforeEach, vi } from 'vitest';

import { mockApi } from '@/testing/api';
import { renderAt } from '@/testing/render';
import { useSession } from '@/stores/session';

import { NoticeModal } from './notice-modal';

beforeEach(() => {
  vi.unstubAllGlobals();
  useSession.setState({ token: 't' });
});

test('a new notice is shown once as a modal; after it is closed it is not shown again', async () => {
  mockApi({ 'GET /api/notices': () => ({ data: { items: [{ id: 4, title: 'Maintenance', body: 'Sunday 02:00 UTC', time: 1_795_132_800_000 }], total: 1 } }) });
  const { user, unmount } = renderAt(<NoticeModal />);
  expect(await screen.findByRole('dialog', { name: 'Maintenance' })).toHaveTextContent('Sunday 02:00 UTC');
  await user.click(screen.getByRole('button', { name: 'Got it' }));
  expect(screen.queryByRole('dialog')).toBeNull();
  expect(localStorage.getItem('noticeSeen')).toBe('1795132800000');
  unmount();
  const api = mockApi({ 'GET /api/notices': () => ({ data: { items: [{ id: 4, title: 'Maintenance', body: 'x', time: 1_795_132_800_000 }], total: 1 } }) });
  renderAt(<NoticeModal />);
  await vi.waitFor(() => expect(api.count('GET /api/notices')).toBe(1));
  expect(screen.queryByRole('dialog')).toBeNull();
});
