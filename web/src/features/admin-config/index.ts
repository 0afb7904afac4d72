/** The back-office's system config and deposit receiving details. */
export { ConfigPage } from './components/config-page';
