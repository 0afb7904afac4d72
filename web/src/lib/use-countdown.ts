/**
 * The e-mail code button's countdown (spec §4): 60 s after a send, 0 at once on failure.
 * It counts to a deadline rather than ticking down, so a throttled background tab still
 * shows the right number when it comes back.
 */
import { useCallback, useEffect, useState } from 'react';

export const CODE_COUNTDOWN_S = 60;
const TICK_MS = 250;

export function useCountdown() {
  const [deadline, setDeadline] = useState(0);
  const [remaining, setRemaining] = useState(0);
  useEffect(() => {
    if (deadline === 0) return undefined;
    const update = () => {
      const left = Math.max(0, Math.ceil((deadline - Date.now()) / 1000));
      setRemaining(left);
      if (left === 0) setDeadline(0);
    };
    update();
    const timer = setInterval(update, TICK_MS);
    return () => clearInterval(timer);
  }, [deadline]);
  const start = useCallback((seconds: number = CODE_COUNTDOWN_S) => {
    setRemaining(seconds);
    setDeadline(Date.now() + seconds * 1000);
  }, []);
  const reset = useCallback(() => {
    setDeadline(0);
    setRemaining(0);
  }, []);
  return { remaining, running: remaining > 0, start, reset };
}
