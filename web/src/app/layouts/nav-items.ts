import { AccountIcon, ContractIcon, MarketsIcon, TradeIcon } from '@/components/icons';

import { lastVisitedSymbol } from '../guards';

/** The main navigation (spec §2): Markets, Trade (last visited pair), Contract, Account. */
export function navItems() {
  return [
    { key: 'markets', to: '/stocks', label: 'nav.markets', Icon: MarketsIcon, match: '/stocks' },
    { key: 'trade', to: `/trade/${lastVisitedSymbol()}`, label: 'nav.trade', Icon: TradeIcon, match: '/trade' },
    { key: 'contract', to: '/contract-record', label: 'nav.contract', Icon: ContractIcon, match: '/contract-record' },
    { key: 'account', to: '/account', label: 'nav.account', Icon: AccountIcon, match: '/account' },
  ] as const;
}

/** Copy trading: in the desktop header's navigation and the avatar menu, not in the phone's bottom bar (four items fit it). */
export const COPY_NAV = { key: 'copy', to: '/copy', label: 'nav.copy', match: '/copy' } as const;

/** Tournaments: where copy trading is. */
export const TOURNAMENTS_NAV = { key: 'tournaments', to: '/tournaments', label: 'nav.tournaments', match: '/tournaments' } as const;

/** The desktop header's navigation: the main items with tournaments and copy trading before the account. */
export function headerNavItems() {
  const [markets, trade, contract, account] = navItems();
  return [markets, trade, contract, TOURNAMENTS_NAV, COPY_NAV, account] as const;
}
