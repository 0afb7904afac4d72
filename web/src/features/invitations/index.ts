/** My invitations: link, code, QR, team and rewards. */
export { Invitations } from './components/invitations';
