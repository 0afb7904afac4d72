/** Security: password, 2FA, sessions, sign-in history. */
export { Security } from './components/security-page';
