/**
 * The live connection's state: a dot in the header, and a banner while it is down with the
 * attempt count, then "Maximum reconnection attempts reached" and a retry button.
 */
import { useTranslation } from 'react-i18next';

import { useConnectionStatus, ws } from '@/lib/ws';
import { useDevice } from '@/stores/device';

export function ConnectionDot() {
  const { t } = useTranslation();
  const { state } = useConnectionStatus();
  const compact = useDevice((s) => s.deviceClass !== 'desktop');
  // On a phone the header has no room to spare: the dot shows only when the line is not live
  // (the banner below the header says more).
  if (compact && state === 'open') return null;
  const label = t(`connection.${state}`, { attempt: 0, max: 0 });
  return <span className={`connection-dot connection-${state}`} role="img" aria-label={`${t('connection.state')}: ${label}`} title={label} />;
}

export function ConnectionBanner() {
  const { t } = useTranslation();
  const { state, attempt, maxAttempts } = useConnectionStatus();
  if (state !== 'reconnecting' && state !== 'failed' && state !== 'offline') return null;
  return (
    <div className={`connection-banner connection-banner-${state}`} role="status" aria-live="polite">
      <span>{t(`connection.${state}`, { attempt, max: maxAttempts })}</span>
      {state === 'failed' && (
        <button type="button" className="btn btn-small btn-secondary" onClick={() => ws.retry()}>
          {t('connection.retry')}
        </button>
      )}
    </div>
  );
}
