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
