/** The back-office's trades (every contract, filtered) and teams (referral trees). */
export { TeamsPage } from './components/teams-page';
export { TradesPage } from './components/trades-page';
