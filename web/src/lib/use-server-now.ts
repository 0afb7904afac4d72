/** The server's clock, re-read every `intervalMs` (countdowns never trust the device clock). */
import { useEffect, useState } from 'react';

import { ws } from '@/lib/ws';

export function useServerNow(intervalMs = 250, active = true): number {
  const [now, setNow] = useState(() => ws.serverNow());
  useEffect(() => {
    if (!active) return undefined;
    const timer = setInterval(() => setNow(ws.serverNow()), intervalMs);
    return () => clearInterval(timer);
  }, [intervalMs, active]);
  return now;
}
