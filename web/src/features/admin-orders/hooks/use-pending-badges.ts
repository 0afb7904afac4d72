/**
 * Polls the pending counts the admin may see, now and every 60 s, and says which badges
 * animate; a rise plays the tone once per poll. A failed poll keeps the last count. An order
 * handled here polls at once, so its badge falls without waiting for the minute.
 */
import { useEffect, useReducer, useState } from 'react';

import { playTone } from '@/lib/tone';

import { pendingCount } from '../api';
import { BADGE_POLL_MS, type Badge, NO_BADGE, type PendingKind, nextBadge, rose } from '../badges';
import { usePendingRefresh } from '../stores/refresh';

export interface BadgeView {
  kind: PendingKind;
  count: number | null;
  animating: boolean;
}

export function usePendingBadges(kinds: readonly PendingKind[]): BadgeView[] {
  const [badges, setBadges] = useState<Partial<Record<PendingKind, Badge>>>({});
  const [, rerender] = useReducer((n: number) => n + 1, 0);
  const key = kinds.join(',');

  useEffect(() => {
    const wanted = key ? (key.split(',') as PendingKind[]) : [];
    if (wanted.length === 0) return undefined;
    const controller = new AbortController();
    const timers = new Set<ReturnType<typeof setTimeout>>();
    let current: Partial<Record<PendingKind, Badge>> = {};

    const poll = async () => {
      const counts = await Promise.all(wanted.map((kind) => pendingCount(kind, controller.signal).catch(() => null)));
      if (controller.signal.aborted) return;
      const now = Date.now();
      const next = { ...current };
      let anyRose = false;
      wanted.forEach((kind, i) => {
        const count = counts[i];
        if (count === null || count === undefined) return;
        const previous = current[kind] ?? NO_BADGE;
        const badge = nextBadge(previous, count, now);
        if (rose(previous, badge)) {
          anyRose = true;
          // Re-render when the animation window ends, so the badge stops.
          const timer = setTimeout(() => {
            timers.delete(timer);
            rerender();
          }, badge.animateUntil - now);
          timers.add(timer);
        }
        next[kind] = badge;
      });
      current = next;
      setBadges(next);
      if (anyRose) playTone();
    };

    void poll();
    const interval = setInterval(() => void poll(), BADGE_POLL_MS);
    const unsubscribe = usePendingRefresh.subscribe(() => void poll());
    return () => {
      controller.abort();
      clearInterval(interval);
      unsubscribe();
      timers.forEach(clearTimeout);
    };
  }, [key]);

  const now = Date.now();
  return kinds.map((kind) => {
    const badge = badges[kind] ?? NO_BADGE;
    return { kind, count: badge.count, animating: badge.animateUntil > now };
  });
}
