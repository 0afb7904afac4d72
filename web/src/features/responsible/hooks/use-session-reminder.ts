/**
 * The session-time reminder (decisions §7b): when the user set one, a message every N minutes
 * of this session says how long they have been here. Mounted once in the signed-in shell.
 */
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';

import { useSession } from '@/stores/session';
import { toast } from '@/stores/toast';

import { limitsApi } from '../api';

export function useSessionReminder(): void {
  const { t } = useTranslation();
  const signedIn = useSession((s) => s.token !== null);
  useEffect(() => {
    if (!signedIn) return undefined;
    let timer: ReturnType<typeof setInterval> | undefined;
    let stopped = false;
    const started = Date.now();
    limitsApi.get().then(
      ({ current }) => {
        const minutes = current.sessionReminderMinutes;
        if (stopped || !minutes) return;
        timer = setInterval(() => {
          toast.info(t('notifications.sessionReminder', { count: Math.round((Date.now() - started) / 60_000) }));
        }, minutes * 60_000);
      },
      () => undefined,
    );
    return () => {
      stopped = true;
      if (timer) clearInterval(timer);
    };
  }, [signedIn, t]);
}
