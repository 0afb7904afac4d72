/**
 * The ranking of one period: read when the period is chosen, and again every minute while the
 * page is open (the server refreshes it at most once a minute). A period read before is shown
 * at once while it is read again.
 */
import { useCallback, useEffect, useRef, useState } from 'react';

import { errorMessage } from '@/lib/api-client';

import { type Period, type TraderBoard, copyApi } from '../api';

export const BOARD_REFRESH_MS = 60_000;

export function useTraderBoard(period: Period) {
  const seen = useRef(new Map<Period, TraderBoard>());
  const [shown, setShown] = useState<{ period: Period; board: TraderBoard } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const request = useRef(0);

  const load = useCallback(async () => {
    const id = ++request.current;
    setError(null);
    try {
      const board = await copyApi.traders(period);
      seen.current.set(period, board);
      if (id === request.current) setShown({ period, board });
    } catch (e) {
      if (id === request.current) setError(errorMessage(e, 'copyTrading.loadFailed'));
    }
  }, [period]);

  useEffect(() => {
    const known = seen.current.get(period);
    setShown(known ? { period, board: known } : null);
    void load();
    const timer = setInterval(() => void load(), BOARD_REFRESH_MS);
    return () => clearInterval(timer);
  }, [period, load]);

  return { board: shown?.period === period ? shown.board : null, error, reload: () => void load() };
}
