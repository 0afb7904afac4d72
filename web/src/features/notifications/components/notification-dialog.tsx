/**
 * The notification centre (spec §2): trade and system tabs with their unread counts; mark all
 * read, sound on/off and clear all; a click marks an item read and, for a trade item with a
 * symbol, opens its market (for one about copy trading, its page); each item can be removed.
 * Full screen at 768 px and below.
 */
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';

import { Dialog } from '@/components/dialog';
import { CheckIcon, CloseIcon, SoundOffIcon, SoundOnIcon, TrashIcon } from '@/components/icons';
import { EmptyState } from '@/components/states';
import { Tabs } from '@/components/tabs';
import { relativeTime } from '@/lib/format';
import { ensureSections } from '@/lib/i18n';
import { useDevice } from '@/stores/device';

import { askDesktopPermission, desktopPermission } from '../alerts';
import { COPY_SECTION, isCopyNote } from '../copy-texts';
import type { StoredNotification } from '../db';
import { displayParams } from '../params';
import { type NotificationType, unreadCount, useNotifications } from '../stores/notifications';

function useClock(intervalMs: number): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), intervalMs);
    return () => clearInterval(timer);
  }, [intervalMs]);
  return now;
}

function Item({ item, now }: { item: StoredNotification; now: number }) {
  const { t, i18n } = useTranslation();
  const navigate = useNavigate();
  const { markRead, remove, setOpen } = useNotifications.getState();
  const params = displayParams(item.params, t, i18n.language);
  const title = item.title ?? t(item.titleKey ?? '', params);
  const message = item.message ?? t(item.messageKey ?? '', params);
  const open = () => {
    void markRead(item.id);
    if (item.type === 'trade' && item.data?.symbol) {
      setOpen(false);
      navigate(`/trade/${item.data.symbol}`);
    } else if (item.data?.path?.startsWith('/')) {
      setOpen(false);
      navigate(item.data.path);
    }
  };
  return (
    <li className={item.read ? 'notification' : 'notification unread'} data-priority={item.priority}>
      <button type="button" className="notification-body" onClick={open}>
        <span className="notification-title">
          {!item.read && <span className="unread-dot" aria-label={t('notifications.unread')} />}
          {item.title !== undefined ? (
            <span dir="auto" lang={item.lang}>
              {title}
            </span>
          ) : (
            title
          )}
        </span>
        <span className="notification-message" dir={item.message !== undefined ? 'auto' : undefined} lang={item.lang}>
          {message}
        </span>
        <span className="notification-time muted">{relativeTime(item.time, now, t)}</span>
      </button>
      <button type="button" className="icon-button" aria-label={t('notifications.remove', { title })} onClick={() => void remove(item.id)}>
        <CloseIcon width={16} height={16} />
      </button>
    </li>
  );
}

export function NotificationDialog() {
  const { t } = useTranslation();
  const { open, tab, items, sound } = useNotifications();
  const { setOpen, setTab, markAllRead, clear, toggleSound } = useNotifications.getState();
  const fullscreen = useDevice((s) => s.deviceClass === 'mobile');
  const now = useClock(30_000);
  const [permission, setPermission] = useState(desktopPermission);
  const shown = items.filter((n) => n.type === tab);
  // Copy trading's notifications kept from before have their texts in a section of their own.
  const copyNotes = items.some(isCopyNote);
  useEffect(() => {
    if (copyNotes) void ensureSections([COPY_SECTION]);
  }, [copyNotes]);
  const label = (type: NotificationType) => {
    const count = unreadCount(items, type);
    return `${t(`notifications.${type}`)}${count > 0 ? ` (${count})` : ''}`;
  };
  const actions = (
    <div className="notification-actions">
      <button type="button" className="icon-button" aria-label={t('notifications.markAllRead')} title={t('notifications.markAllRead')} onClick={() => void markAllRead(tab)}>
        <CheckIcon />
      </button>
      <button
        type="button"
        className="icon-button"
        aria-label={sound ? t('notifications.soundOff') : t('notifications.soundOn')}
        aria-pressed={sound}
        title={sound ? t('notifications.soundOff') : t('notifications.soundOn')}
        onClick={toggleSound}
      >
        {sound ? <SoundOnIcon /> : <SoundOffIcon />}
      </button>
      <button type="button" className="icon-button" aria-label={t('notifications.clearAll')} title={t('notifications.clearAll')} onClick={() => void clear(tab)}>
        <TrashIcon />
      </button>
    </div>
  );
  return (
    <Dialog open={open} title={t('notifications.title')} onClose={() => setOpen(false)} fullscreen={fullscreen} className="notification-dialog" actions={actions}>
      <Tabs
        label={t('notifications.title')}
        value={tab}
        onChange={setTab}
        items={[
          { key: 'trade', label: label('trade') },
          { key: 'system', label: label('system') },
        ]}
      />
      {permission === 'default' && (
        <button type="button" className="link-button notification-permission" onClick={() => void askDesktopPermission().then(setPermission)}>
          {t('notifications.enableDesktop')}
        </button>
      )}
      {shown.length === 0 ? (
        <EmptyState text={t('notifications.empty')} />
      ) : (
        <ul className="notification-list">
          {shown.map((item) => (
            <Item key={item.id} item={item} now={now} />
          ))}
        </ul>
      )}
    </Dialog>
  );
}
