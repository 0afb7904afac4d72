/** The wallet: balances, money actions and their modals, bills. */
export { WalletActions } from './components/wallet-actions';
export { WalletView } from './components/wallet-view';
export { TransactionHistory } from './components/transaction-history';
export { AccountStatement } from './components/account-statement';
export { DemoReset } from './components/demo-reset';
