/**
 * One product's line for the trade header: 24 h statistics over HTTP (refreshed every 30 s),
 * the price from the websocket's ticks. Each tick also stretches the 24 h high and low.
 */
import { useCallback, useEffect, useState } from 'react';

import { ApiError, errorMessage } from '@/lib/api-client';
import { compare } from '@/lib/decimal';
import { useTopic } from '@/lib/ws';
import type { TickFrame } from '@/lib/ws-frames';

import { type MarketItem, tradeApi } from '../api';

export const STATS_REFRESH_MS = 30_000;

/** A tick frame's data. */
export type TickData = TickFrame;

export function useMarketItem(symbol: string) {
  const [line, setLine] = useState<MarketItem | null>(null);
  const [tick, setTick] = useState<TickData | null>(null);
  const [error, setError] = useState<{ message: string; notFound: boolean } | null>(null);

  const load = useCallback(async () => {
    try {
      setLine(await tradeApi.market(symbol));
      setError(null);
    } catch (e) {
      setError({ message: errorMessage(e, 'trade.noProduct'), notFound: e instanceof ApiError && e.status === 404 });
    }
  }, [symbol]);

  useEffect(() => {
    setLine(null);
    setTick(null);
    setError(null);
    void load();
    const timer = setInterval(() => void load(), STATS_REFRESH_MS);
    return () => clearInterval(timer);
  }, [load]);

  useTopic<TickData>({ channel: 'ticks', symbol }, (frame) => {
    const next = frame.data;
    setTick(next);
    setLine((current) => {
      if (!current) return current;
      const high = !current.high || compare(next.price, current.high) > 0 ? next.price : current.high;
      const low = !current.low || compare(next.price, current.low) < 0 ? next.price : current.low;
      return { ...current, price: next.price, high, low };
    });
  });

  return { line, tick, error, retry: load };
}
