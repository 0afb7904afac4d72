/**
 * Tournaments (gateway/src/api/tournaments.rs): the lobby, a tournament's rules and standings,
 * entering and rebuying, and every player's contracts in it. Amounts are decimal strings in
 * USDT (fees, prizes) or tournament money (balances); shares are basis points (1/100 of a
 * percent); times are ms since the epoch.
 */
import { api } from '@/lib/api';
import type { Page } from '@/lib/api-client';
import type { ContractRow, Schemas } from '@/types/api';

/**
 * A tournament in the lobby: `status` is `upcoming`, `running`, `ending` (past its end, its
 * last contracts settling), `finished` or `cancelled`; `pool` what the fees so far make the
 * prize pool (never below its minimum), or what was paid; `prizes` each paid place's share of it.
 */
export type TournamentSummary = Schemas['TournamentSummary'];

/** What an admin set, fixed once published (see {@link TournamentSummary}). */
export type TournamentRules = Schemas['TournamentRulesView'];

/** A place: masked name, tournament balance (available and in position), the prize for the place. */
export type Standing = Schemas['Standing'];

/** A tournament with its first 100 places (the final table once finished). */
export type TournamentDetail = Schemas['TournamentDetail'];

/** A tournament I entered, with my place and the rebuys left to me. */
export type MyTournament = Schemas['MyTournament'];

export type TournamentStatus = 'upcoming' | 'running' | 'ending' | 'finished' | 'cancelled' | 'draft';

/** The lobby's tabs, in order (`mine`: the ones I entered, signed in). */
export const LOBBY_TABS = ['running', 'upcoming', 'finished', 'mine'] as const;
export type LobbyTab = (typeof LOBBY_TABS)[number];

/** The tab a tournament is listed under by its status (a cancelled one with the finished). */
export function tabOf(status: string): Exclude<LobbyTab, 'mine'> {
  if (status === 'running' || status === 'ending') return 'running';
  if (status === 'upcoming') return 'upcoming';
  return 'finished';
}

/** `8000` → `"80"`: basis points as a percentage. */
export function percentOf(bp: number): string {
  return String(bp / 100);
}

export const tournamentsApi = {
  /** No sign-in needed. */
  lobby: () => api.get<TournamentSummary[]>('/tournaments'),
  /** No sign-in needed; 404 `TOURNAMENT_NOT_FOUND`. */
  detail: (id: number) => api.get<TournamentDetail>(`/tournaments/${id}`),
  mine: () => api.get<MyTournament[]>('/tournaments/mine'),
  /** Debits the entry fee from the real wallet; entering twice changes nothing. */
  join: (id: number) => api.post<MyTournament[]>(`/tournaments/${id}/join`),
  rebuy: (id: number) => api.post<MyTournament[]>(`/tournaments/${id}/rebuy`),
  /** A player's contracts in the tournament, newest first (public). */
  contracts: (id: number, uid: number, page: number) =>
    api.get<Page<ContractRow>>(`/tournaments/${id}/players/${uid}/contracts`, { query: { page, pageSize: 20 } }),
};
