/** The trade feature: chart, order panel, live contracts. */
export { TradeDetail } from './components/trade-detail';
