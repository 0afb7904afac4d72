/** The back-office's tournaments: drafts, publication, cancellation. */
export { TournamentsPage } from './components/tournaments-page';
