/**
 * A system notice (spec §2 modal) is shown once as a modal, when it arrives or at the next
 * visit if it came while the user was away; afterwards it lives in the notification centre.
 * Only notices for every language or for the app's current one are shown (the server's list
 * is already filtered by the language header; live frames go to every user). A notice an
 * admin withdraws closes at once.
 */
import { useEffect, useEffectEvent, useState } from 'react';
import { useTranslation } from 'react-i18next';

import { Dialog } from '@/components/dialog';
import { api } from '@/lib/api';
import type { Page } from '@/lib/api-client';
import { formatDateTime } from '@/lib/format';
import { StorageKey, readKey, writeKey } from '@/lib/storage';
import { useWsEvent } from '@/lib/ws';
import type { NoticeFrame, NoticeWithdrawnFrame } from '@/lib/ws-frames';
import { useSession } from '@/stores/session';
import type { NoticeRow } from '@/types/api';

import { type Notice, noticeIsFor } from '../notices';

const seen = () => Number(readKey(StorageKey.noticeSeen) ?? '0') || 0;

export function NoticeModal() {
  const { t, i18n } = useTranslation();
  const signedIn = useSession((s) => s.token !== null);
  const [notice, setNotice] = useState<Notice | null>(null);
  // Read when the answer comes, not a reason to look again: a language change does not.
  const isForLanguage = useEffectEvent((shown: Notice) => noticeIsFor(shown, i18n.language));

  useEffect(() => {
    if (!signedIn) return;
    api.get<Page<NoticeRow>>('/notices', { query: { page: 1, pageSize: 1 } }).then(
      ({ items }) => {
        const newest = items[0];
        if (newest && newest.time > seen() && isForLanguage(newest)) setNotice(newest);
      },
      () => undefined,
    );
    // The newest notice is looked for once per sign-in, in the language of that moment.
  }, [signedIn]);
  useWsEvent<NoticeFrame>('notice', ({ data }) => {
    if (data.time > seen() && noticeIsFor(data, i18n.language)) setNotice(data);
  });
  useWsEvent<NoticeWithdrawnFrame>('noticeWithdrawn', ({ data }) => setNotice((shown) => (shown?.id === data.id ? null : shown)));

  const close = () => {
    if (notice) writeKey(StorageKey.noticeSeen, String(notice.time));
    setNotice(null);
  };
  const lang = notice?.lang || undefined;
  return (
    <Dialog
      open={notice !== null}
      title={
        <span dir="auto" lang={lang}>
          {notice?.title ?? ''}
        </span>
      }
      onClose={close}
    >
      <p className="notice-body" dir="auto" lang={lang}>
        {notice?.body}
      </p>
      <p className="muted small">{notice ? formatDateTime(notice.time, i18n.language) : ''}</p>
      <div className="dialog-actions">
        <button type="button" className="btn btn-primary btn-block" onClick={close}>
          {t('notifications.noticeOk')}
        </button>
      </div>
    </Dialog>
  );
}
