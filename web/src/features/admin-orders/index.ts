/** The back-office's recharge and withdraw orders: the lists with their actions, the pending badges. */
export { badgeText } from './badges';
export type { PendingKind } from './badges';
export { OrdersPage } from './components/orders-page';
export { usePendingBadges } from './hooks/use-pending-badges';
export type { BadgeView } from './hooks/use-pending-badges';
