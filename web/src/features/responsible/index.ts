/** Responsible trading: the user's own limits and self-exclusion. */
export { ResponsibleTrading } from './components/responsible-trading';
export { useSessionReminder } from './hooks/use-session-reminder';
