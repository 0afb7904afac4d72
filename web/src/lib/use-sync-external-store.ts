/**
 * What `use-sync-external-store/shim` is for React 19: React's own hook. The package (which
 * react-i18next imports) also carries a fallback for React before 18, dead code here; the
 * production build resolves the shim to this module instead (vite.config.ts).
 */
export { useSyncExternalStore } from 'react';
