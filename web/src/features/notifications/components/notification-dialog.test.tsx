import { act, screen, within } from '@testing-library/react';
import { IDBFactory } from 'fake-indexeddb';
import { beforeEach, vi } from 'vitest';

import { formatDateTime } from '@/lib/format';
import { changeLanguage } from '@/lib/i18n';
import { useDevice } from '@/stores/device';
import { renderAt } from '@/testing/render';

import { notificationDb } from '../db';
import { copyNoteNotification } from '../copy-notes';
import { securityNotification, settlementNotification } from '../hooks/use-notification-feed';
import { useNotifications } from '../stores/notifications';
import { NotificationBell, badgeText } from './notification-bell';
import { NotificationDialog } from './notification-dialog';

const settledWin = settlementNotification({
  contractId: 42,
  symbol: 'BTCUSDT',
  outcome: 'win',
  result: 'profit',
  amount: '8.5',
  profit: '8.5',
  exitPrice: '97000.1',
  settledAt: Date.now() - 5 * 60_000,
});

beforeEach(() => {
  globalThis.indexedDB = new IDBFactory();
  notificationDb.reset();
  useNotifications.setState({ items: [], loaded: true, open: false, tab: 'trade', sound: true });
  useDevice.setState({ width: 1440, deviceClass: 'desktop' });
});

function shell() {
  return renderAt(
    <>
      <NotificationBell />
      <NotificationDialog />
    </>,
    { path: '/stocks', route: '/stocks' },
  );
}

test('settlements: a win is high priority, a loss medium, with the amount and symbol', () => {
  expect(settledWin).toMatchObject({ id: 'settled-42', type: 'trade', priority: 'high', titleKey: 'notifications.settled.profit' });
  const loss = settlementNotification({ ...{ contractId: 1, symbol: 'ETHUSDT', outcome: 'loss', result: 'loss', amount: '10', profit: '-10', exitPrice: '1', settledAt: 1 } });
  expect(loss.priority).toBe('medium');
  const tie = settlementNotification({ contractId: 2, symbol: 'ETHUSDT', outcome: 'tie', result: 'even', amount: '0', profit: '0', exitPrice: '1', settledAt: 1 });
  expect(tie.priority).toBe('low');
});

test('a contract sold early reads as sold early, with what the sale paid', async () => {
  const sold = settlementNotification({
    contractId: 44,
    symbol: 'BTCUSDT',
    outcome: 'sold',
    result: 'loss',
    amount: '1.22',
    profit: '-1.22',
    credited: '8.78',
    exitPrice: '96505',
    settledAt: Date.now() - 60_000,
  });
  expect(sold).toMatchObject({ id: 'settled-44', type: 'trade', priority: 'medium', titleKey: 'notifications.settled.sold', params: { amount: '8.78' } });
  await useNotifications.getState().add(sold);
  const { user } = shell();
  await user.click(screen.getByRole('button', { name: 'Notifications, 1 unread' }));
  const dialog = screen.getByRole('dialog', { name: 'Notifications' });
  expect(within(dialog).getByText('Sold early')).toBeInTheDocument();
  expect(within(dialog).getByText('BTCUSDT #44: 8.78 USDT')).toBeInTheDocument();
});

test('the bell shows the unread count, 99+ at most', async () => {
  expect(badgeText(7)).toBe('7');
  expect(badgeText(99)).toBe('99');
  expect(badgeText(100)).toBe('99+');
  await useNotifications.getState().add(settledWin);
  shell();
  expect(screen.getByRole('button', { name: 'Notifications, 1 unread' })).toBeInTheDocument();
});

test('tabs with unread counts; a click on a trade item reads it and opens its market', async () => {
  await useNotifications.getState().add(settledWin);
  await useNotifications.getState().add({ id: 'sys-1', type: 'system', priority: 'low', title: 'Maintenance', message: 'Tonight at 2:00', time: Date.now(), read: false });
  const { user, router } = shell();
  await user.click(screen.getByRole('button', { name: 'Notifications, 2 unread' }));
  const dialog = screen.getByRole('dialog', { name: 'Notifications' });
  expect(within(dialog).getByRole('tab', { name: 'Trade (1)' })).toHaveAttribute('aria-selected', 'true');
  expect(within(dialog).getByRole('tab', { name: 'System (1)' })).toBeInTheDocument();
  expect(within(dialog).getByText('Order settled: Profit')).toBeInTheDocument();
  expect(within(dialog).getByText('BTCUSDT #42: 8.50 USDT')).toBeInTheDocument();
  expect(within(dialog).getByText('5m ago')).toBeInTheDocument();

  await user.click(within(dialog).getByText('Order settled: Profit'));
  await vi.waitFor(() => expect(router.state.location.pathname).toBe('/trade/BTCUSDT'));
  expect(useNotifications.getState().items.find((i) => i.id === 'settled-42')?.read).toBe(true);
});

test('mark all read, remove one, clear all, the empty state and the sound switch', async () => {
  await useNotifications.getState().add(settledWin);
  await useNotifications.getState().add({ ...settledWin, id: 'settled-43', params: { ...settledWin.params, id: 43 } });
  useNotifications.setState({ open: true });
  const { user } = shell();
  const dialog = screen.getByRole('dialog', { name: 'Notifications' });
  await user.click(within(dialog).getByRole('button', { name: 'Mark all as read' }));
  expect(within(dialog).getByRole('tab', { name: 'Trade' })).toBeInTheDocument();

  await user.click(within(dialog).getAllByRole('button', { name: /^Remove/ })[0]!);
  expect(useNotifications.getState().items).toHaveLength(1);
  await user.click(within(dialog).getByRole('button', { name: 'Clear all' }));
  expect(within(dialog).getByText('No notifications')).toBeInTheDocument();

  await user.click(within(dialog).getByRole('button', { name: 'Turn sound off' }));
  expect(window.localStorage.getItem('notificationSound')).toBe('disabled');
  expect(within(dialog).getByRole('button', { name: 'Turn sound on' })).toBeInTheDocument();
});

test('full screen on a phone', () => {
  useDevice.setState({ width: 390, deviceClass: 'mobile' });
  useNotifications.setState({ open: true });
  shell();
  expect(screen.getByRole('dialog', { name: 'Notifications' })).toHaveClass('dialog-fullscreen');
});

test("a two-factor pause reads in the user's language, its end as a date of that language", async () => {
  const until = Date.UTC(2026, 10, 25, 20, 15);
  const item = securityNotification({ kind: 'twoFactorLocked', time: until - 15 * 60_000, until, failures: 5 })!;
  useNotifications.setState({ items: [item], open: true, tab: 'system' });
  shell();
  const row = screen.getByText('Two-factor actions paused').closest('li')!;
  expect(row).toHaveAttribute('data-priority', 'high');
  expect(within(row).getByText(`Too many wrong authenticator codes were entered. Until ${formatDateTime(until, 'en-US')}, two-factor sign-in, turning it off, transfers and withdrawals are refused. If this was not you, change your password.`)).toBeInTheDocument();
  try {
    await act(() => changeLanguage('de-DE'));
    expect(await screen.findByText('Zwei-Faktor-Aktionen gesperrt')).toBeInTheDocument();
    expect(screen.getByText(new RegExp(`^Es wurden zu viele falsche Authenticator-Codes eingegeben\\. Bis ${formatDateTime(until, 'de-DE')} `))).toBeInTheDocument();
  } finally {
    await act(() => changeLanguage('en-US'));
  }
  // A kind this app does not know yet is not announced at all.
  expect(securityNotification({ kind: 'somethingNew', time: 1, until: 2, failures: 0 })).toBeNull();
});

test("a refused copy reads in the user's language, and a click opens the trader's profile", async () => {
  const item = copyNoteNotification({ kind: 'copy.refused', time: Date.now() - 60_000, follower: 7, leader: 3, contractId: 120, code: 'INSUFFICIENT_BALANCE' }, 7);
  await useNotifications.getState().add(item!);
  useNotifications.setState({ open: true });
  const { user, router } = shell();
  const dialog = screen.getByRole('dialog', { name: 'Notifications' });
  expect(within(dialog).getByText("Your copy of trader #3's order was refused: insufficient balance")).toBeInTheDocument();
  try {
    await act(() => changeLanguage('de-DE'));
    expect(await within(dialog).findByText('Ihre Kopie des Auftrags von Trader #3 wurde abgelehnt: unzureichendes Guthaben')).toBeInTheDocument();
  } finally {
    await act(() => changeLanguage('en-US'));
  }
  await user.click(within(dialog).getByText('Copy refused'));
  await vi.waitFor(() => expect(router.state.location.pathname).toBe('/copy/3'));
  expect(useNotifications.getState().items[0]?.read).toBe(true);
});
