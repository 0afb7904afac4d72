/** The back-office's users: search, a user's figures, freeze, balance adjustment. */
export { UsersPage } from './components/users-page';
