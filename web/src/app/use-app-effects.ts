/**
 * What every page does in the background, mounted once at the root: the device class (read
 * at start, on resize once per frame, on each route change), the site's settings, and the
 * end of a session (a 401, a session closed by the server, a changed wallet): go to /login
 * with a message.
 */
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation, useNavigate } from 'react-router';

import { useDevice, watchResize } from '@/stores/device';
import { useSession } from '@/stores/session';
import { useSite } from '@/stores/site';
import { toast } from '@/stores/toast';

export function useAppEffects(): void {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const { pathname } = useLocation();
  const endedBy = useSession((s) => s.endedBy);

  useEffect(() => {
    void useSite.getState().load();
    return watchResize(window);
  }, []);

  useEffect(() => useDevice.getState().measure(), [pathname]);

  useEffect(() => {
    if (!endedBy) return;
    if (endedBy === 'expired') toast.error(t('auth.errors.sessionExpired'));
    if (endedBy === 'wallet-changed') toast.info(t('auth.wallet.changed'));
    useSession.getState().acknowledgeEnd();
    navigate('/login', { replace: true });
  }, [endedBy, navigate, t]);
}
