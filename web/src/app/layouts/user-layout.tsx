/**
 * The trader's shell (spec §2): header, connection state, the screen, bottom navigation and
 * the notification centre. It owns the live connection and the signed-in background work.
 */
import { useTranslation } from 'react-i18next';
import { Outlet } from 'react-router';

import { useWalletSessionCheck } from '@/features/auth';
import { NoticeModal, NotificationDialog, useNotificationFeed } from '@/features/notifications';
import { useSessionReminder } from '@/features/responsible';
import { useDevice } from '@/stores/device';

import { BottomNav } from './bottom-nav';
import { ConnectionBanner } from './connection';
import { Header } from './header';
import { useShellEffects } from './use-shell-effects';

export function Component() {
  const { t } = useTranslation();
  const deviceClass = useDevice((s) => s.deviceClass);
  useShellEffects();
  useNotificationFeed();
  useSessionReminder();
  useWalletSessionCheck();
  return (
    <div className={`shell shell-${deviceClass}`}>
      <a className="skip-link" href="#main">
        {t('app.skipToContent')}
      </a>
      <Header />
      <ConnectionBanner />
      <main id="main" className="shell-main" tabIndex={-1}>
        <Outlet />
      </main>
      {deviceClass !== 'desktop' && <BottomNav />}
      <NotificationDialog />
      <NoticeModal />
    </div>
  );
}
