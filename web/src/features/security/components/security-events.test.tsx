import { act, screen, waitFor, within } from '@testing-library/react';
import { beforeEach, vi } from 'vitest';

import { formatDateTime } from '@/lib/format';
import { useSession } from '@/stores/session';
import { mockApi } from '@/testing/api';
import { renderAt } from '@/testing/render';

import { SecurityEvents } from './security-events';

/** The private stream's listeners, by frame type, as the page registers them. */
const listeners = new Map<string, () => void>();
vi.mock('@/lib/ws', () => ({
  useWsEvent: (type: string, listener: () => void) => listeners.set(type, listener),
}));

beforeEach(() => {
  vi.unstubAllGlobals();
  listeners.clear();
  useSession.setState({ token: 't' });
});

const paused = (time: number, failures = 5) => ({ kind: 'twoFactorLocked', time, until: time + 15 * 60_000, failures });

test('security events: what happened, when, how many wrong codes and until when, newest first; a new one shows at once', async () => {
  const first = paused(Date.UTC(2026, 10, 20, 9, 30));
  let events = [first];
  const api = mockApi({ 'GET /api/user/security-events': () => ({ data: { items: events, total: events.length } }) });
  renderAt(<SecurityEvents />);
  const section = screen.getByRole('region', { name: 'Security events' });
  const row = (await within(section).findByText('Two-factor actions paused')).closest('li')!;
  expect(row).toHaveTextContent(`${formatDateTime(first.time, 'en-US')} · Wrong authenticator codes in a row: 5`);
  expect(row).toHaveTextContent(`Until ${formatDateTime(first.until, 'en-US')}`);
  expect(api.calls[0]!.url.search).toBe('?page=1&pageSize=10');

  // The private stream says another pause began: the list is read again.
  const second = paused(Date.UTC(2026, 10, 25, 20, 0), 10);
  events = [second, first];
  act(() => listeners.get('security')!());
  await waitFor(() => expect(within(section).getAllByRole('listitem')).toHaveLength(2));
  expect(within(section).getAllByRole('listitem')[0]).toHaveTextContent(`Until ${formatDateTime(second.until, 'en-US')}`);
  expect(within(section).getAllByRole('listitem')[0]).toHaveTextContent('Wrong authenticator codes in a row: 10');
});

test('security events: an empty state, and a failure with a retry', async () => {
  let fail = true;
  mockApi({
    'GET /api/user/security-events': () => (fail ? { status: 500, code: 'INTERNAL', message: 'Server error' } : { data: { items: [], total: 0 } }),
  });
  const { user } = renderAt(<SecurityEvents />);
  expect(await screen.findByRole('alert')).toHaveTextContent('Server error');
  fail = false;
  await user.click(screen.getByRole('button', { name: 'Retry' }));
  expect(await screen.findByText('No security events')).toBeInTheDocument();
});
