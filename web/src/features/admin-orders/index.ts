/** The back-office's recharge and withdraw orders: pending badges. */
export { badgeText } from './badges';
export type { PendingKind } from './badges';
export { usePendingBadges } from './hooks/use-pending-badges';
export type { BadgeView } from './hooks/use-pending-badges';
