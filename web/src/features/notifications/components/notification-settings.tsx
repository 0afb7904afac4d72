/**
 * Notification settings (spec §2): six switches stored on the server. Trade, system and price
 * alerts decide what the notification centre keeps and sounds (the price-alert row links to
 * the alerts themselves); e-mail, marketing and the newsletter are kept for the messages that
 * use them.
 */
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';

import { ErrorState, Spinner } from '@/components/states';
import { errorMessage } from '@/lib/api-client';
import { toast } from '@/stores/toast';

import { type NotificationSettings as Settings, SETTING_KEYS, usePreferences } from '../stores/preferences';

export function NotificationSettings() {
  const { t } = useTranslation();
  const { settings, loaded, load, save } = usePreferences();
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState<keyof Settings | null>(null);

  const reload = () => {
    setError(null);
    load().catch((e: unknown) => setError(errorMessage(e)));
  };
  useEffect(reload, [load]);

  if (error && !loaded) return <ErrorState text={error} onRetry={reload} />;
  if (!loaded) return <Spinner />;
  const flip = async (key: keyof Settings) => {
    setBusy(key);
    try {
      await save({ ...settings, [key]: !settings[key] });
      toast.success(t('notifications.settings.saved'));
    } catch (e) {
      toast.error(errorMessage(e));
    } finally {
      setBusy(null);
    }
  };
  return (
    <section className="card" aria-labelledby="notify-settings-title">
      <h1 id="notify-settings-title" className="page-title">
        {t('notifications.settings.title')}
      </h1>
      <ul className="switch-list">
        {SETTING_KEYS.map((key) => (
          <li key={key} className="switch-row">
            <div>
              <div>{t(`notifications.settings.${key}`)}</div>
              <div className="muted small">{t(`notifications.settings.${key}Hint`)}</div>
              {key === 'priceAlerts' && (
                <Link to="/account/price-alerts" className="small">
                  {t('notifications.settings.manageAlerts')}
                </Link>
              )}
            </div>
            <button type="button" role="switch" aria-checked={settings[key]} aria-label={t(`notifications.settings.${key}`)} className="switch" disabled={busy === key} onClick={() => void flip(key)}>
              <span className="switch-knob" aria-hidden="true" />
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}
