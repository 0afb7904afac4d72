import { screen, waitFor, within } from '@testing-library/react';
import { beforeEach, vi } from 'vitest';

import { formatTime } from '@/lib/format';
import { useSession } from '@/stores/session';
import { useToasts } from '@/stores/toast';
import { mockApi } from '@/testing/api';
import { testUser } from '@/testing/fixtures';
import { renderAt } from '@/testing/render';

import type { FollowerLink, MyCopy, TraderBoard, TraderItem } from '../api';
import { useMyCopy } from '../stores/my-copy';
import { CopyTrading } from './copy-trading';

const REFRESHED = 1_700_000_060_000;

const trader = (uid: number, name: string, profit: string, winRate: string, contracts: number, followers: number): TraderItem => ({
  uid,
  name,
  followers,
  sharingSince: 1_690_000_000_000,
  stats: { contracts, wins: Math.round(contracts * Number(winRate)), winRate, profit },
});

const BOARDS: Record<string, TraderBoard> = {
  '24h': { period: '24h', refreshedAt: REFRESHED, items: [trader(3, 'al***e', '12.5', '0.625', 8, 3), trader(9, 'bo***b', '-4', '0.25', 4, 0)] },
  '7d': { period: '7d', refreshedAt: REFRESHED, items: [trader(9, 'bo***b', '310.75', '0.7', 40, 0)] },
  '30d': { period: '30d', refreshedAt: REFRESHED, items: [] },
};

const board = () => ({ 'GET /api/copy/traders': (_body: unknown, url: URL) => ({ data: BOARDS[url.searchParams.get('period') ?? ''] }) });

const lastToast = () => useToasts.getState().toasts.at(-1)?.text;

beforeEach(() => {
  vi.unstubAllGlobals();
  useSession.setState({ token: null, user: null });
  useMyCopy.getState().reset();
  useToasts.setState({ toasts: [] });
});

test('the top traders are listed by period with their figures and profile links, and the period switches', async () => {
  const api = mockApi(board());
  const { user, router } = renderAt(<CopyTrading />, { path: '/copy', route: '/copy' });
  const list = await screen.findByRole('list', { name: 'Top traders, 24 h' });
  const rows = within(list).getAllByRole('listitem');
  expect(rows).toHaveLength(2);
  expect(within(rows[0]!).getByRole('link', { name: 'al***e, view profile' })).toHaveAttribute('href', '/copy/3');
  expect(rows[0]).toHaveTextContent('Win rate62.5%');
  expect(rows[0]).toHaveTextContent('Profit (USDT)+12.50');
  expect(rows[0]).toHaveTextContent('Contracts8');
  expect(rows[0]).toHaveTextContent('Followers3');
  expect(rows[0]).not.toHaveTextContent('Copying');
  expect(within(rows[1]!).getByText('-4.00')).toHaveClass('down');
  expect(screen.getByTestId('board-refreshed')).toHaveTextContent(`Updated at ${formatTime(REFRESHED, 'en-US')} · refreshed at most once a minute`);
  expect(screen.getByRole('tab', { name: '24 h' })).toHaveAttribute('aria-selected', 'true');

  await user.click(screen.getByRole('tab', { name: '7 days' }));
  const week = await screen.findByRole('list', { name: 'Top traders, 7 days' });
  expect(within(week).getAllByRole('listitem')).toHaveLength(1);
  expect(week).toHaveTextContent('+310.75');
  expect(router.state.location.search).toBe('?period=7d');

  await user.click(screen.getByRole('tab', { name: '30 days' }));
  expect(await screen.findByText('No trader shares their trades yet.')).toBeInTheDocument();
  const periods = api.calls.filter((c) => c.key === 'GET /api/copy/traders').map((c) => c.url.searchParams.get('period'));
  expect(periods).toEqual(['24h', '7d', '30d']);
});

test('a long ranking is shown 20 lines at a time', async () => {
  const items = Array.from({ length: 45 }, (_, i) => trader(100 + i, `t${i}***x`, String(500 - i), '0.5', 10, 1));
  mockApi({ 'GET /api/copy/traders': () => ({ data: { period: '24h', refreshedAt: REFRESHED, items } }) });
  const { user } = renderAt(<CopyTrading />, { path: '/copy', route: '/copy' });
  const list = await screen.findByRole('list', { name: 'Top traders, 24 h' });
  expect(within(list).getAllByRole('listitem')).toHaveLength(20);
  await user.click(screen.getByRole('button', { name: 'Show more' }));
  expect(within(list).getAllByRole('listitem')).toHaveLength(40);
  await user.click(screen.getByRole('button', { name: 'Show more' }));
  expect(within(list).getAllByRole('listitem')).toHaveLength(45);
  expect(within(list).getAllByRole('listitem').at(-1)).toHaveTextContent('t44***x');
  expect(screen.queryByRole('button', { name: 'Show more' })).toBeNull();
});

test('a guest gets a sign-in link instead of their own copy trading, and nothing of theirs is read', async () => {
  const api = mockApi(board());
  renderAt(<CopyTrading />, { path: '/copy', route: '/copy?period=7d' });
  expect(await screen.findByRole('list', { name: 'Top traders, 7 days' })).toBeInTheDocument();
  const mine = screen.getByRole('region', { name: 'My copy trading' });
  expect(within(mine).getByRole('link', { name: 'Sign in' })).toHaveAttribute('href', '/login');
  expect(within(mine).queryByRole('switch')).toBeNull();
  expect(api.count('GET /api/copy')).toBe(0);
});

/** A trader I copy, with my settings. */
const link = (uid: number, name: string, account: 'real' | 'demo' = 'demo') => ({
  uid,
  name,
  since: 1_700_000_000_000,
  settings: { account, percent: 50, minStake: '1', maxStake: '100', stopBelow: '20' },
});

/** Someone who copies me: only the wallet their copies go to. */
const follower = (uid: number, name: string, account: 'real' | 'demo' = 'demo'): FollowerLink => ({ uid, name, account, since: 1_700_000_000_000 });

test('signed in: sharing is switched on, a trader I copy is shown with its settings and stopped, a follower removed', async () => {
  let mine: MyCopy = { sharing: false, sharingSince: null, following: [link(3, 'al***e')], followers: [], followersMax: 100, followingMax: 10 };
  const api = mockApi({
    ...board(),
    'GET /api/copy': () => ({ data: mine }),
    'PUT /api/copy/sharing': (body) => {
      mine = { ...mine, sharing: (body as { sharing: boolean }).sharing, sharingSince: 1_700_000_000_000, followers: [follower(7, 'ch***y', 'real')] };
      return { data: mine };
    },
    'DELETE /api/copy/following/3': () => ((mine = { ...mine, following: [] }), { data: mine }),
    'DELETE /api/copy/followers/7': () => ((mine = { ...mine, followers: [] }), { data: mine }),
  });
  useSession.getState().signIn('tok', testUser('bob', { uid: 5 }));
  const { user } = renderAt(<CopyTrading />, { path: '/copy', route: '/copy' });
  const panel = await screen.findByRole('region', { name: 'My copy trading' });
  const share = await within(panel).findByRole('switch', { name: 'Share my trades' });
  expect(share).toHaveAttribute('aria-checked', 'false');
  expect(share).toHaveAccessibleDescription(/other users can copy your orders.*Your masked name and your real-account results are shown publicly/);

  // The trader I copy is marked in the ranking.
  const ranking = await screen.findByRole('list', { name: 'Top traders, 24 h' });
  const [first, second] = within(ranking).getAllByRole('listitem');
  expect(within(first!).getByText('Copying')).toBeInTheDocument();
  expect(second).not.toHaveTextContent('Copying');

  const following = within(panel).getByRole('region', { name: /Traders I copy/ });
  expect(following).toHaveTextContent('1 of 10');
  expect(following).toHaveTextContent("Demo · 50% of the trader's stake · 1.00 to 100.00 USDT · stop below 20.00 USDT");
  expect(within(following).getByRole('link', { name: 'al***e' })).toHaveAttribute('href', '/copy/3');
  expect(within(following).getByRole('button', { name: 'Edit copying al***e' })).toBeInTheDocument();

  await user.click(share);
  await waitFor(() => expect(share).toHaveAttribute('aria-checked', 'true'));
  expect(api.calls.find((c) => c.key === 'PUT /api/copy/sharing')?.body).toEqual({ sharing: true });
  expect(lastToast()).toBe('Your trades are shared');

  await user.click(within(following).getByRole('button', { name: 'Stop copying al***e' }));
  const confirm = await screen.findByRole('dialog', { name: 'Stop copying al***e?' });
  expect(api.count('DELETE /api/copy/following/3')).toBe(0);
  await user.click(within(confirm).getByRole('button', { name: 'Stop copying' }));
  await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
  expect(api.count('DELETE /api/copy/following/3')).toBe(1);
  expect(following).toHaveTextContent('You do not copy any trader yet');
  expect(lastToast()).toBe('You no longer copy al***e');
  expect(first).not.toHaveTextContent('Copying');

  // A follower's wallet is shown, not their stakes or stop level (theirs alone).
  const followers = within(panel).getByRole('region', { name: /My followers/ });
  expect(followers).toHaveTextContent('Copies to the Real account');
  expect(followers).not.toHaveTextContent('USDT');
  await user.click(within(followers).getByRole('button', { name: 'Remove follower ch***y' }));
  await user.click(within(await screen.findByRole('dialog', { name: 'Remove ch***y?' })).getByRole('button', { name: 'Remove' }));
  await waitFor(() => expect(followers).toHaveTextContent('Nobody copies you yet.'));
  expect(api.count('DELETE /api/copy/followers/7')).toBe(1);
});

test('turning sharing off while someone copies me is asked first, with how many stop', async () => {
  let mine: MyCopy = { sharing: true, sharingSince: 1_700_000_000_000, following: [], followers: [follower(7, 'ch***y'), follower(8, 'da***n')], followersMax: 100, followingMax: 10 };
  const api = mockApi({
    ...board(),
    'GET /api/copy': () => ({ data: mine }),
    'PUT /api/copy/sharing': () => ((mine = { ...mine, sharing: false, sharingSince: null, followers: [] }), { data: mine }),
  });
  useSession.getState().signIn('tok', testUser('bob', { uid: 5 }));
  const { user } = renderAt(<CopyTrading />, { path: '/copy', route: '/copy' });
  const share = await screen.findByRole('switch', { name: 'Share my trades' });
  expect(share).toHaveAttribute('aria-checked', 'true');
  await user.click(share);
  const dialog = await screen.findByRole('dialog', { name: 'Stop sharing your trades?' });
  expect(dialog).toHaveTextContent('Followers who will stop copying you: 2.');
  expect(api.count('PUT /api/copy/sharing')).toBe(0);
  await user.click(within(dialog).getByRole('button', { name: 'Stop sharing' }));
  await waitFor(() => expect(share).toHaveAttribute('aria-checked', 'false'));
  expect(api.calls.find((c) => c.key === 'PUT /api/copy/sharing')?.body).toEqual({ sharing: false });
});

test('when as many traders share as allowed, turning sharing on shows the server\'s message and the switch stays off', async () => {
  const api = mockApi({
    ...board(),
    'GET /api/copy': () => ({ data: { sharing: false, sharingSince: null, following: [], followers: [], followersMax: 100, followingMax: 10 } }),
    'PUT /api/copy/sharing': () => ({ status: 409, code: 'SHARING_FULL', message: 'As many traders share their trades as allowed: try again later' }),
  });
  useSession.getState().signIn('tok', testUser('bob', { uid: 5 }));
  const { user } = renderAt(<CopyTrading />, { path: '/copy', route: '/copy' });
  const share = await screen.findByRole('switch', { name: 'Share my trades' });
  await user.click(share);
  await waitFor(() => expect(lastToast()).toBe('As many traders share their trades as allowed: try again later'));
  expect(useToasts.getState().toasts.at(-1)).toMatchObject({ kind: 'error' });
  expect(api.count('PUT /api/copy/sharing')).toBe(1);
  expect(share).toHaveAttribute('aria-checked', 'false');
  expect(share).toBeEnabled();
});

test('a removal the server refuses is told in the dialog; one of a copy already ended reads the list again', async () => {
  const mine: MyCopy = { sharing: true, sharingSince: 1_700_000_000_000, following: [], followers: [follower(7, 'ch***y'), follower(8, 'da***n')], followersMax: 100, followingMax: 10 };
  const api = mockApi({
    ...board(),
    'GET /api/copy': () => ({ data: mine }),
    'DELETE /api/copy/followers/7': () => ({ status: 503, code: 'BUSY', message: 'Busy: try again' }),
    'DELETE /api/copy/followers/8': () => ({ status: 404, code: 'COPY_NOT_FOUND', message: 'This copy is no longer running' }),
  });
  useSession.getState().signIn('tok', testUser('bob', { uid: 5 }));
  const { user } = renderAt(<CopyTrading />, { path: '/copy', route: '/copy' });
  const followers = await screen.findByRole('region', { name: /My followers/ });
  await user.click(within(followers).getByRole('button', { name: 'Remove follower ch***y' }));
  const dialog = await screen.findByRole('dialog', { name: 'Remove ch***y?' });
  await user.click(within(dialog).getByRole('button', { name: 'Remove' }));
  expect(await within(dialog).findByText('Busy: try again')).toBeInTheDocument();
  await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));

  // da***n stopped on their own meanwhile: nothing failed, the list is read again.
  const reads = api.count('GET /api/copy');
  await user.click(within(followers).getByRole('button', { name: 'Remove follower da***n' }));
  await user.click(within(await screen.findByRole('dialog', { name: 'Remove da***n?' })).getByRole('button', { name: 'Remove' }));
  await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
  expect(api.count('DELETE /api/copy/followers/8')).toBe(1);
  expect(api.count('GET /api/copy')).toBe(reads + 1);
});

test('"Traders I copy" links to my copied trades: the contract records showing only copies', async () => {
  mockApi({
    ...board(),
    'GET /api/copy': () => ({ data: { sharing: false, sharingSince: null, following: [link(3, 'al***e')], followers: [], followersMax: 100, followingMax: 10 } }),
  });
  useSession.getState().signIn('tok', testUser('bob', { uid: 5 }));
  const { user, router } = renderAt(<CopyTrading />, { path: '/copy', route: '/copy' });
  const panel = await screen.findByRole('region', { name: 'My copy trading' });
  const following = await within(panel).findByRole('region', { name: /Traders I copy/ });
  const copies = within(following).getByRole('link', { name: 'My copied trades' });
  expect(copies).toHaveAttribute('href', '/contract-record?copied=true');
  await user.click(copies);
  await waitFor(() => expect(router.state.location.pathname).toBe('/contract-record'));
  expect(router.state.location.search).toBe('?copied=true');
});
