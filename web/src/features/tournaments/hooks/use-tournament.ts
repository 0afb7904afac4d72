/**
 * One tournament as its page shows it: the rules and standings read over HTTP, then kept live
 * by the websocket's `tournament` channel (a player's balance moves their line; an entry, a
 * cancellation or the final table reads it again). Signed in, my own entry with my place.
 */
import { useCallback, useEffect, useRef, useState } from 'react';

import { ApiError, errorMessage } from '@/lib/api-client';
import { useTopic } from '@/lib/ws';
import type { ServerFrame } from '@/lib/ws-client';
import { useSession } from '@/stores/session';

import { type MyTournament, type Standing, type TournamentDetail, tournamentsApi } from '../api';

/** A player's balance moved (`tournament.standing`). */
export interface StandingFrame {
  tournament: number;
  uid: number;
  balance: string;
  rebuys: number;
}

/** Reads again at most this often when frames name players the list does not show. */
const REREAD_GAP_MS = 2_000;

/**
 * The standings after a player's balance changed: their line moves to its place by balance
 * (an equal balance reached later stays below), and each place keeps its prize.
 */
export function applyStanding(standings: Standing[], prizes: readonly string[], frame: StandingFrame): Standing[] | null {
  const at = standings.findIndex((s) => s.uid === frame.uid);
  if (at < 0) return null;
  const moved = { ...standings[at]!, balance: frame.balance, rebuys: frame.rebuys };
  const rest = standings.filter((_, i) => i !== at);
  const value = Number(moved.balance);
  const place = rest.findIndex((s) => Number(s.balance) < value);
  rest.splice(place < 0 ? rest.length : place, 0, moved);
  return rest.map((s, i) => ({ ...s, place: i + 1, prize: prizes[i] ?? '0.00' }));
}

export function useTournament(id: number) {
  const signedIn = useSession((s) => s.token !== null);
  const [detail, setDetail] = useState<TournamentDetail | null>(null);
  const [mine, setMine] = useState<MyTournament | null>(null);
  const [missing, setMissing] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const lastRead = useRef(0);

  const load = useCallback(async () => {
    lastRead.current = Date.now();
    setError(null);
    try {
      const [read, entries] = await Promise.all([tournamentsApi.detail(id), signedIn ? tournamentsApi.mine() : Promise.resolve([])]);
      setDetail(read);
      setMine(entries.find((m) => m.tournament.id === id) ?? null);
    } catch (e) {
      if (e instanceof ApiError && e.status === 404) setMissing(true);
      else setError(errorMessage(e, 'tournaments.loadFailed'));
    }
  }, [id, signedIn]);

  useEffect(() => {
    setDetail(null);
    setMissing(false);
    void load();
  }, [load]);

  useTopic<StandingFrame>({ channel: 'tournament', tournament: id }, (frame: ServerFrame<StandingFrame>) => {
    if (frame.type !== 'tournament.standing') {
      void load();
      return;
    }
    const moved = detail ? applyStanding(detail.standings, detail.tournament.prizes, frame.data) : null;
    if (moved && detail) setDetail({ ...detail, standings: moved });
    else if (Date.now() - lastRead.current > REREAD_GAP_MS) void load();
    if (mine && frame.data.uid === mine.me.uid) {
      const place = (moved ?? detail?.standings)?.find((s) => s.uid === frame.data.uid)?.place ?? mine.me.place;
      setMine({ ...mine, me: { ...mine.me, balance: frame.data.balance, place } });
    }
  });

  return { detail, mine, missing, error, reload: () => void load(), setMine };
}
