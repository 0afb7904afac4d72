/**
 * The back-office's pending-order badges (spec §4, §9): counts polled every 60 s, shown as
 * 99+ at most; when a count rises above the previous poll's (not on the first poll), the
 * badge animates for 60 s and a tone plays.
 */
export const BADGE_POLL_MS = 60_000;
export const BADGE_ANIMATION_MS = 60_000;
export const BADGE_MAX = 99;

export type PendingKind = 'recharge' | 'withdraw';

export interface Badge {
  /** The last count, `null` before the first answer. */
  count: number | null;
  /** Until when it animates (ms since the epoch; 0 when it never rose). */
  animateUntil: number;
}

export const NO_BADGE: Badge = { count: null, animateUntil: 0 };

/** The badge after a poll answered `count` at `now`. */
export function nextBadge(previous: Badge, count: number, now: number): Badge {
  const rose = previous.count !== null && count > previous.count;
  return { count, animateUntil: rose ? now + BADGE_ANIMATION_MS : previous.animateUntil };
}

/** Did this poll make the badge rise? */
export function rose(previous: Badge, next: Badge): boolean {
  return next.animateUntil !== previous.animateUntil;
}

/** The text on a badge: the count, or 99+ above 99. */
export function badgeText(count: number): string {
  return count > BADGE_MAX ? `${BADGE_MAX}+` : String(count);
}
