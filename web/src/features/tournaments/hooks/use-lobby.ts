/** The lobby's tournaments, and mine when signed in: read at once and every 30 s while open. */
import { useCallback, useEffect, useState } from 'react';

import { errorMessage } from '@/lib/api-client';
import { useSession } from '@/stores/session';

import { type MyTournament, type TournamentSummary, tournamentsApi } from '../api';

export const LOBBY_REFRESH_MS = 30_000;

export function useLobby() {
  const signedIn = useSession((s) => s.token !== null);
  const [list, setList] = useState<TournamentSummary[] | null>(null);
  const [mine, setMine] = useState<MyTournament[]>([]);
  const [error, setError] = useState<string | null>(null);

  const load = useCallback(async () => {
    setError(null);
    try {
      const [lobby, entries] = await Promise.all([tournamentsApi.lobby(), signedIn ? tournamentsApi.mine() : Promise.resolve([])]);
      setList(lobby);
      setMine(entries);
    } catch (e) {
      setError(errorMessage(e, 'tournaments.loadFailed'));
    }
  }, [signedIn]);

  useEffect(() => {
    void load();
    const timer = setInterval(() => void load(), LOBBY_REFRESH_MS);
    return () => clearInterval(timer);
  }, [load]);

  return { list, mine, error, reload: () => void load() };
}
