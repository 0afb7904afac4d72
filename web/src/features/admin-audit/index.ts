/** The back-office's audit log. */
export { AuditPage } from './components/audit-page';
