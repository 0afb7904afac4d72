/** The account centre. */
export { AccountCentre } from './components/account-centre';
