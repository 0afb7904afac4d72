/** Price alerts: set from the trade page or the account page, fired once by the server. */
export { PriceAlertButton } from './components/price-alert-button';
export { PriceAlertsPanel } from './components/price-alerts-panel';
