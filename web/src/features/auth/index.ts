/** The auth feature: sign-in, registration, password reset, wallet sessions. */
export { AuthPage } from './components/auth-page';
export { useWalletSessionCheck } from './hooks/use-wallet-session-check';
export { signOutUser } from './session';
