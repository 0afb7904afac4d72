/** The trade feature: chart, order panel, live contracts. */
export { TradeDetail, type HeaderAction } from './components/trade-detail';
