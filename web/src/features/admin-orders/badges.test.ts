import { describe, expect, it } from 'vitest';

import { BADGE_ANIMATION_MS, NO_BADGE, badgeText, nextBadge, rose } from './badges';

describe('pending badges', () => {
  it('does not animate on the first poll, however high the count', () => {
    const first = nextBadge(NO_BADGE, 40, 1_000);
    expect(first).toEqual({ count: 40, animateUntil: 0 });
    expect(rose(NO_BADGE, first)).toBe(false);
  });

  it('animates for 60 s when a count rises above the previous poll', () => {
    const first = nextBadge(NO_BADGE, 3, 0);
    const second = nextBadge(first, 4, 60_000);
    expect(rose(first, second)).toBe(true);
    expect(second.animateUntil).toBe(60_000 + BADGE_ANIMATION_MS);
  });

  it('does not animate again when the count stays or falls, and keeps a running window', () => {
    const risen = nextBadge(nextBadge(NO_BADGE, 3, 0), 5, 60_000);
    const same = nextBadge(risen, 5, 90_000);
    const fell = nextBadge(same, 2, 100_000);
    expect(rose(risen, same)).toBe(false);
    expect(rose(same, fell)).toBe(false);
    expect(fell.animateUntil).toBe(risen.animateUntil);
  });

  it('shows 99+ above 99', () => {
    expect(badgeText(0)).toBe('0');
    expect(badgeText(99)).toBe('99');
    expect(badgeText(100)).toBe('99+');
    expect(badgeText(12_345)).toBe('99+');
  });
});
