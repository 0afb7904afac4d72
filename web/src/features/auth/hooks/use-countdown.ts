/** The e-mail code button's countdown (spec §4): 60 s after a send, 0 at once on failure. */
import { useCallback, useEffect, useState } from 'react';

export const CODE_COUNTDOWN_S = 60;

export function useCountdown() {
  const [remaining, setRemaining] = useState(0);
  useEffect(() => {
    if (remaining <= 0) return undefined;
    const timer = setTimeout(() => setRemaining((r) => r - 1), 1_000);
    return () => clearTimeout(timer);
  }, [remaining]);
  const start = useCallback((seconds: number = CODE_COUNTDOWN_S) => setRemaining(seconds), []);
  const reset = useCallback(() => setRemaining(0), []);
  return { remaining, running: remaining > 0, start, reset };
}
