/** The back-office's dashboard: key figures of now, today and 30 days, a daily chart. */
export { AdminDashboard } from './components/dashboard';
