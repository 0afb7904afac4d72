/** The back-office's system notices: broadcast and the list sent. */
export { NoticesPage } from './components/notices-page';
