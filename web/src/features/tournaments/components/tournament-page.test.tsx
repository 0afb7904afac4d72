import { act, screen, waitFor, within } from '@testing-library/react';
import { beforeEach, vi } from 'vitest';

import { ws } from '@/lib/ws';
import { useSession } from '@/stores/session';
import { useToasts } from '@/stores/toast';
import { useWallet } from '@/stores/wallet';
import { mockApi } from '@/testing/api';
import { testUser } from '@/testing/fixtures';
import { renderAt } from '@/testing/render';

import type { MyTournament, Standing, TournamentDetail, TournamentSummary } from '../api';
import { applyStanding } from '../hooks/use-tournament';
import { TournamentPage } from './tournament-page';

const NOW = Date.now();

const SUMMARY: TournamentSummary = {
  id: 7,
  status: 'running',
  players: 3,
  pool: '50.00',
  prizes: ['35.00', '15.00'],
  rules: {
    title: 'Friday sprint',
    symbols: ['BTCUSDT'],
    durations: [60],
    startAt: NOW - 60_000,
    endAt: NOW + 3_600_000,
    entryFee: '10.00',
    startBalance: '1000.00',
    rebuysMax: 1,
    rebuyFee: '5.00',
    rebuyBelow: '500.00',
    poolShareBp: 8000,
    poolMin: '50.00',
    prizesBp: [7000, 3000],
  },
};

const line = (place: number, uid: number, name: string, balance: string): Standing => ({
  place,
  uid,
  name,
  balance,
  reachedIndex: place,
  rebuys: 0,
  prize: SUMMARY.prizes[place - 1] ?? '0.00',
});

const DETAIL: TournamentDetail = {
  tournament: SUMMARY,
  standings: [line(1, 3, 'al***e', '1200.00'), line(2, 5, 'b***b', '1000.00'), line(3, 9, 'c***l', '400.00')],
};

const lastToast = () => useToasts.getState().toasts.at(-1)?.text;

beforeEach(() => {
  vi.unstubAllGlobals();
  useToasts.setState({ toasts: [] });
  useWallet.setState({ account: 'real', chosen: true });
  useSession.getState().signIn('tok', testUser('bob', { uid: 5 }));
});

const render = () => renderAt(<TournamentPage id={7} />, { path: '/tournaments/:id', route: '/tournaments/7' });

test('a line moves to its place by balance and each place keeps its prize', () => {
  const moved = applyStanding(DETAIL.standings, SUMMARY.prizes, { tournament: 7, uid: 9, balance: '1500.00', rebuys: 1 });
  expect(moved?.map((s) => [s.place, s.uid, s.balance, s.prize])).toEqual([
    [1, 9, '1500.00', '35.00'],
    [2, 3, '1200.00', '15.00'],
    [3, 5, '1000.00', '0.00'],
  ]);
  // An equal balance reached later stays below the one reached first.
  const tie = applyStanding(DETAIL.standings, SUMMARY.prizes, { tournament: 7, uid: 9, balance: '1000.00', rebuys: 0 });
  expect(tie?.map((s) => s.uid)).toEqual([3, 5, 9]);
  expect(applyStanding(DETAIL.standings, SUMMARY.prizes, { tournament: 7, uid: 42, balance: '1.00', rebuys: 0 })).toBeNull();
});

test('joining asks first, sends once, and shows my place; the standings mark me', async () => {
  let mine: MyTournament[] = [];
  const api = mockApi({
    'GET /api/tournaments/7': () => ({ data: DETAIL }),
    'GET /api/tournaments/mine': () => ({ data: mine }),
    'POST /api/tournaments/7/join': () => {
      mine = [{ tournament: SUMMARY, me: line(2, 5, 'b***b', '1000.00'), rebuysLeft: 1 }];
      return { data: mine };
    },
    'GET /api/wallet/balance': () => ({ data: { account: 'real', total: '90', available: '90', inPosition: '0', frozen: '0', change24h: '0', change24hPercent: '0' } }),
  });
  const { user } = render();
  expect(await screen.findByRole('heading', { name: 'Friday sprint', level: 1 })).toBeInTheDocument();
  const standings = screen.getByTestId('standings');
  expect(within(standings).getByRole('row', { current: true })).toHaveTextContent('2b***b #5You1,000.0015.00Contracts');
  await user.click(screen.getByRole('button', { name: 'Join for 10.00 USDT' }));
  const dialog = await screen.findByRole('dialog', { name: 'Join Friday sprint?' });
  expect(dialog).toHaveTextContent('10.00 USDT is taken from your real balance now. You start with a tournament balance of 1,000.00');
  await user.click(within(dialog).getByRole('button', { name: 'Join' }));
  await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
  expect(api.count('POST /api/tournaments/7/join')).toBe(1);
  expect(lastToast()).toBe('You play Friday sprint');
  const entry = await screen.findByTestId('my-entry');
  expect(entry).toHaveTextContent('My place2 of 3');
  // 1 000 is not below the rebuy level of 500: no rebuy offered.
  expect(within(entry).queryByRole('button', { name: /Rebuy/ })).toBeNull();
  await user.click(within(entry).getByRole('button', { name: 'Trade the tournament balance' }));
  expect(useWallet.getState().account).toBe('tournament');
});

test('a standing frame over the websocket moves the line live', async () => {
  mockApi({
    'GET /api/tournaments/7': () => ({ data: DETAIL }),
    'GET /api/tournaments/mine': () => ({ data: [] }),
  });
  const listeners: Array<(frame: unknown) => void> = [];
  vi.spyOn(ws, 'subscribe').mockImplementation((topic, listener) => {
    expect(topic).toEqual({ channel: 'tournament', tournament: 7 });
    listeners.push(listener as (frame: unknown) => void);
    return () => undefined;
  });
  render();
  const standings = await screen.findByTestId('standings');
  act(() => listeners.forEach((l) => l({ type: 'tournament.standing', data: { tournament: 7, uid: 9, balance: '2000.00', rebuys: 1 } })));
  const rows = within(standings).getAllByRole('row').slice(1);
  expect(rows[0]).toHaveTextContent('1c***l #92,000.0035.00Contracts');
});

test('a tournament that does not exist says so', async () => {
  mockApi({
    'GET /api/tournaments/7': () => ({ status: 404, code: 'TOURNAMENT_NOT_FOUND', message: 'Tournament not found' }),
    'GET /api/tournaments/mine': () => ({ data: [] }),
  });
  render();
  expect(await screen.findByRole('heading', { name: 'This tournament does not exist' })).toBeInTheDocument();
});
