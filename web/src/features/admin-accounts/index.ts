/** Back-office accounts: one's own account (password, two-factor), and the list of admins. */
export { AccountPage } from './components/account-page';
export { AdminsPage } from './components/admins-page';
