/**
 * The market list: loaded over HTTP (with retry), then kept live by the websocket's tickers.
 * Updates are gathered and applied once per animation frame, so 32 products ticking 4 times
 * a second re-render at most at the screen's rate, and only the rows that changed.
 */
import { useCallback, useEffect, useRef, useState } from 'react';

import { errorMessage } from '@/lib/api-client';
import { useTopic } from '@/lib/ws';
import type { ServerFrame } from '@/lib/ws-client';
import type { TickerFrame } from '@/lib/ws-frames';

import { type MarketItem, getMarkets } from '../api';

export function useMarkets() {
  const [items, setItems] = useState<Map<string, MarketItem>>(new Map());
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<string | null>(null);
  const pending = useRef(new Map<string, MarketItem>());
  const frame = useRef(0);

  const load = useCallback(async () => {
    setLoading(true);
    setError(null);
    try {
      const list = await getMarkets();
      setItems((current) => {
        const next = new Map(list.map((item) => [item.symbol, item] as const));
        // A live line newer than the HTTP answer wins.
        for (const [symbol, item] of current) if (next.has(symbol)) next.set(symbol, item);
        return next;
      });
    } catch (e) {
      setError(errorMessage(e, 'markets.loadFailed'));
    } finally {
      setLoading(false);
    }
  }, []);

  useEffect(() => {
    void load();
    return () => cancelAnimationFrame(frame.current);
  }, [load]);

  // `ticker` frames carry one line, the `tickers` snapshot every line.
  useTopic<TickerFrame | TickerFrame[]>({ channel: 'tickers' }, (message: ServerFrame<TickerFrame | TickerFrame[]>) => {
    const lines = Array.isArray(message.data) ? message.data : [message.data];
    for (const line of lines) if (line?.symbol) pending.current.set(line.symbol, line);
    if (frame.current) return;
    frame.current = requestAnimationFrame(() => {
      frame.current = 0;
      const updates = pending.current;
      pending.current = new Map();
      setItems((current) => {
        const next = new Map(current);
        for (const [symbol, line] of updates) next.set(symbol, line);
        return next;
      });
      setLoading(false);
      setError(null);
    });
  });

  return { items: [...items.values()], loading: loading && items.size === 0, error: items.size === 0 ? error : null, retry: load };
}
