/**
 * The trades page's live state: a dot and a short text (live, connecting, reconnecting with
 * the attempt, stopped with a retry, offline, refused), announced politely as it changes.
 */
import { useTranslation } from 'react-i18next';

import type { ConnectionStatus } from '@/lib/ws-client';

type Shown = 'live' | 'connecting' | 'reconnecting' | 'failed' | 'offline' | 'refused';

function shownState(status: ConnectionStatus, refused: string | null): Shown {
  if (refused !== null) return 'refused';
  switch (status.state) {
    case 'open':
      return status.authenticated ? 'live' : 'connecting';
    case 'reconnecting':
    case 'failed':
    case 'offline':
      return status.state;
    default:
      return 'connecting';
  }
}

export function LiveIndicator({ status, refused, onRetry }: { status: ConnectionStatus; refused: string | null; onRetry(): void }) {
  const { t } = useTranslation();
  const shown = shownState(status, refused);
  return (
    <div className={`admin-live admin-live-${shown}`}>
      <span className="admin-live-dot" aria-hidden="true" />
      <span role="status" aria-live="polite">
        {t(`admin.trades.live.${shown}`, { attempt: status.attempt, max: status.maxAttempts, reason: refused ?? '' })}
      </span>
      {(shown === 'failed' || shown === 'refused') && (
        <button type="button" className="btn btn-small btn-secondary" onClick={onRetry}>
          {t('admin.trades.live.retry')}
        </button>
      )}
    </div>
  );
}
