import { screen, waitFor, within } from '@testing-library/react';
import { beforeEach, vi } from 'vitest';

import { useSession } from '@/stores/session';
import { useToasts } from '@/stores/toast';
import { useWallet } from '@/stores/wallet';
import { mockApi } from '@/testing/api';
import { testUser } from '@/testing/fixtures';
import { renderAt } from '@/testing/render';

import type { CopySettingsView, MyCopy, TraderProfile as Profile } from '../api';
import { useMyCopy } from '../stores/my-copy';
import { formatDay } from './figures';
import { TraderProfile } from './trader-profile';

const PROFILE: Profile = {
  uid: 3,
  name: 'al***e',
  followers: 12,
  sharingSince: 1_690_000_000_000,
  day: { contracts: 8, wins: 5, winRate: '0.625', profit: '12.5' },
  week: { contracts: 40, wins: 22, winRate: '0.55', profit: '-30' },
  month: { contracts: 160, wins: 100, winRate: '0.625', profit: '1234.56' },
  refreshedAt: 1_700_000_060_000,
};

const NONE: MyCopy = { sharing: false, sharingSince: null, following: [], followers: [], followersMax: 100, followingMax: 10 };

const lastToast = () => useToasts.getState().toasts.at(-1)?.text;

beforeEach(() => {
  vi.unstubAllGlobals();
  useMyCopy.getState().reset();
  useToasts.setState({ toasts: [] });
  useWallet.setState({ account: 'real', chosen: false });
  useSession.getState().signIn('tok', testUser('bob', { uid: 5 }));
});

type Refusal = { status?: number; code?: string; message?: string; field?: string };

/** Trader 3's profile, my copy trading (copying nobody at first), and my PUT answered by `put` (a refusal, or `{}` to accept). */
function server(put: (body: unknown) => Refusal) {
  let mine = NONE;
  return mockApi({
    'GET /api/copy/traders/3': () => ({ data: PROFILE }),
    'GET /api/copy': () => ({ data: mine }),
    'PUT /api/copy/following/3': (body) => {
      const refusal = put(body);
      if (refusal.status) return refusal;
      mine = { ...mine, following: [{ uid: 3, name: 'al***e', since: Date.now(), settings: body as CopySettingsView }] };
      return { data: mine };
    },
  });
}

const render = () => renderAt(<TraderProfile uid={3} />, { path: '/copy/:uid', route: '/copy/3' });

test('the profile shows the three periods’ results, followers and sharing since', async () => {
  server(() => ({}));
  render();
  expect(await screen.findByRole('heading', { name: /al\*\*\*e/, level: 1 })).toHaveTextContent('UID 3');
  const table = screen.getByTestId('trader-stats');
  const rows = within(table).getAllByRole('row');
  expect(rows[0]).toHaveTextContent('24 h7 days30 days');
  expect(within(table).getByRole('row', { name: /Profit \(USDT\)/ })).toHaveTextContent('+12.50-30.00+1,234.56');
  expect(within(table).getByRole('row', { name: /Win rate/ })).toHaveTextContent('62.5%55%62.5%');
  expect(within(table).getByRole('row', { name: /Contracts/ })).toHaveTextContent('840160');
  expect(screen.getByText('Followers').nextSibling).toHaveTextContent('12');
  expect(screen.getByText('Sharing since').nextSibling).toHaveTextContent(formatDay(PROFILE.sharingSince, 'en-US'));
  expect(await screen.findByRole('button', { name: 'Copy this trader' })).toBeInTheDocument();
});

test('the copy form checks its fields before sending, then sends the settings once and shows them', async () => {
  const api = server(() => ({}));
  const { user } = render();
  await user.click(await screen.findByRole('button', { name: 'Copy this trader' }));
  const dialog = await screen.findByRole('dialog', { name: 'Copy al***e' });
  // A new copy goes to demo money unless the header's switch chose an account.
  expect(within(dialog).getByRole('radio', { name: 'Demo' })).toBeChecked();
  expect(within(dialog).getByLabelText('Stop level')).toHaveAccessibleDescription(/Copying ends when your available balance in this account is below this amount/);

  const percent = within(dialog).getByLabelText('Stake size');
  const min = within(dialog).getByLabelText('Minimum stake');
  const max = within(dialog).getByLabelText('Maximum stake');
  const stop = within(dialog).getByLabelText('Stop level');
  await user.clear(percent);
  await user.type(percent, '1500');
  await user.clear(min);
  await user.type(min, '5.123');
  await user.clear(max);
  await user.type(max, '0');
  await user.clear(stop);
  await user.type(stop, '-5');
  await user.click(within(dialog).getByRole('button', { name: 'Start copying' }));
  expect(percent).toHaveAccessibleDescription('A whole number from 1 to 1000');
  expect(min).toHaveAccessibleDescription('An amount above 0 with at most 2 decimals');
  expect(max).toHaveAccessibleDescription('An amount above 0 with at most 2 decimals');
  expect(stop).toHaveAccessibleDescription('0 or more, with at most 2 decimals');
  expect(percent).toHaveAttribute('aria-invalid', 'true');

  await user.clear(percent);
  await user.type(percent, '50');
  await user.clear(min);
  await user.type(min, '20');
  await user.clear(max);
  await user.type(max, '10');
  await user.clear(stop);
  await user.type(stop, '25.5');
  await user.click(within(dialog).getByRole('button', { name: 'Start copying' }));
  expect(max).toHaveAccessibleDescription('The maximum cannot be below the minimum');
  expect(api.count('PUT /api/copy/following/3')).toBe(0);

  await user.clear(max);
  await user.type(max, '40');
  await user.click(within(dialog).getByRole('radio', { name: 'Real' }));
  await user.click(within(dialog).getByRole('button', { name: 'Start copying' }));
  await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
  expect(api.calls.filter((c) => c.key === 'PUT /api/copy/following/3').map((c) => c.body)).toEqual([
    { account: 'real', percent: 50, minStake: '20', maxStake: '40', stopBelow: '25.5' },
  ]);
  expect(lastToast()).toBe('You now copy al***e');
  const current = screen.getByTestId('copy-current');
  expect(current).toHaveTextContent('You copy this trader');
  expect(current).toHaveTextContent("Real · 50% of the trader's stake · 20.00 to 40.00 USDT · stop below 25.50 USDT");

  // Copying already: the form edits the settings in force.
  await user.click(within(current).getByRole('button', { name: 'Edit settings' }));
  const edit = await screen.findByRole('dialog', { name: 'Copy settings: al***e' });
  expect(within(edit).getByLabelText('Maximum stake')).toHaveValue('40');
  expect(within(edit).getByRole('radio', { name: 'Real' })).toBeChecked();
  expect(within(edit).getByRole('button', { name: 'Save settings' })).toBeInTheDocument();
  expect(within(current).getByRole('button', { name: 'Stop copying' })).toBeInTheDocument();
});

test('the server’s refusal of a field lands on that field; a copy code on the form; nothing is sent again', async () => {
  let answer: Refusal = { status: 400, code: 'VALIDATION', message: 'At most 500 USDT', field: 'maxStake' };
  const api = server(() => answer);
  const { user } = render();
  await user.click(await screen.findByRole('button', { name: 'Copy this trader' }));
  const dialog = await screen.findByRole('dialog', { name: 'Copy al***e' });
  const max = within(dialog).getByLabelText('Maximum stake');
  await user.clear(max);
  await user.type(max, '900');
  await user.click(within(dialog).getByRole('button', { name: 'Start copying' }));
  await waitFor(() => expect(max).toHaveAccessibleDescription('At most 500 USDT'));
  expect(max).toHaveAttribute('aria-invalid', 'true');
  expect(dialog.querySelector('.form-error')).toBeNull();
  expect(api.count('PUT /api/copy/following/3')).toBe(1);

  // Typing clears the field's message; the next refusal (the trader is full) is the form's.
  await user.type(max, '0');
  expect(max).not.toHaveAttribute('aria-invalid');
  answer = { status: 409, code: 'FOLLOWERS_FULL', message: 'This trader has as many followers as allowed' };
  await user.click(within(dialog).getByRole('button', { name: 'Start copying' }));
  expect(await within(dialog).findByText('This trader has as many followers as allowed')).toHaveClass('form-error');
  expect(api.count('PUT /api/copy/following/3')).toBe(2);
  await new Promise((r) => setTimeout(r, 50));
  expect(api.count('PUT /api/copy/following/3')).toBe(2);
  expect(screen.getByRole('dialog', { name: 'Copy al***e' })).toBeInTheDocument();
});

test('a trader who does not share has no profile; a guest is sent to sign in; my own profile has no copy button', async () => {
  mockApi({ 'GET /api/copy/traders/4': () => ({ status: 404, code: 'NOT_COPYABLE', message: 'not copyable' }) });
  const { unmount } = renderAt(<TraderProfile uid={4} />, { path: '/copy/:uid', route: '/copy/4' });
  expect(await screen.findByRole('heading', { name: 'This trader does not share their trades.' })).toBeInTheDocument();
  expect(screen.getByRole('link', { name: 'Top traders' })).toHaveAttribute('href', '/copy');
  unmount();

  useSession.setState({ token: null, user: null });
  const guest = server(() => ({}));
  const second = render();
  expect(await screen.findByRole('link', { name: 'Sign in to copy this trader' })).toHaveAttribute('href', '/login');
  expect(guest.count('GET /api/copy')).toBe(0);
  second.unmount();

  useSession.getState().signIn('tok', testUser('alice', { uid: 3 }));
  server(() => ({}));
  render();
  expect(await screen.findByText('This is you: your profile as others see it.')).toBeInTheDocument();
  expect(screen.queryByRole('button', { name: 'Copy this trader' })).toBeNull();
});
