/** The markets feature: the market list with live prices. */
export { MarketList } from './components/market-list';
