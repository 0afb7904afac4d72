/** Copy trading: the top traders, a trader's profile, copying one, and sharing one's own trades. */
export { CopyTrading } from './components/copy-trading';
export { TraderProfile } from './components/trader-profile';
