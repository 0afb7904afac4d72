import { screen, within } from '@testing-library/react';
import { beforeEach, vi } from 'vitest';

import { useDevice } from '@/stores/device';
import { useSession } from '@/stores/session';
import { useSite } from '@/stores/site';
import { useWallet } from '@/stores/wallet';
import { siteInfo, testUser } from '@/testing/fixtures';
import { renderAt } from '@/testing/render';

import { BottomNav } from './bottom-nav';
import { Header } from './header';

const SITE = siteInfo({ siteName: 'Acme Trade', customerService: { enabled: true, serviceLink: 'https://support.example.com/chat' } });


beforeEach(() => {
  useSite.setState({ info: SITE });
  useSession.setState({ token: null, user: null });
  useDevice.setState({ width: 1440, deviceClass: 'desktop' });
  useWallet.setState({ account: 'demo', chosen: true, balances: { real: null, demo: null, tournament: null } });
});

test('a guest sees the site name, language, customer service and a guest avatar to /login; no bell', () => {
  renderAt(<Header />);
  expect(screen.getByRole('link', { name: 'Acme Trade, home' })).toHaveAttribute('href', '/');
  expect(screen.getByRole('combobox', { name: 'Language' })).toBeInTheDocument();
  expect(screen.getByRole('link', { name: 'Guest: sign in' })).toHaveAttribute('href', '/login');
  expect(screen.queryByRole('button', { name: /Notifications/ })).toBeNull();
  expect(screen.queryByRole('combobox', { name: 'Trading account' })).toBeNull();
});

test("the operator's customer-service hours are shown; none when left empty", () => {
  useSite.setState({ info: { ...SITE, customerService: { ...SITE.customerService, hours: '08:00-20:00' } } });
  const { unmount } = renderAt(<Header />);
  expect(screen.getByRole('button', { name: 'Customer service, 08:00-20:00 UTC' })).toHaveTextContent('08:00-20:00 UTC');
  unmount();
  useSite.setState({ info: { ...SITE, customerService: { ...SITE.customerService, hours: '' } } });
  renderAt(<Header />);
  expect(screen.getByRole('button', { name: 'Customer service' })).not.toHaveTextContent(/\d/);
});

test('customer service opens the configured link in a new tab and shows the hours; hidden when disabled', async () => {
  const open = vi.spyOn(window, 'open').mockReturnValue(null);
  const { user: driver, unmount } = renderAt(<Header />);
  const button = screen.getByRole('button', { name: 'Customer service, 9:00-21:00 UTC' });
  expect(button).toHaveTextContent('9:00-21:00 UTC');
  await driver.click(button);
  expect(open).toHaveBeenCalledWith('https://support.example.com/chat', '_blank', 'noopener,noreferrer');
  unmount();
  useSite.setState({ info: { ...SITE, customerService: { enabled: false, serviceLink: 'https://x' } } });
  renderAt(<Header />);
  expect(screen.queryByRole('button', { name: /Customer service/ })).toBeNull();
});

test('a signed-in user has the bell, the account switch and the avatar menu with logout', async () => {
  useSession.setState({ token: 'tok', user: testUser('alice_1') });
  const { user: driver } = renderAt(<Header />);
  expect(screen.getByRole('button', { name: 'Notifications' })).toBeInTheDocument();
  expect(screen.getByRole('combobox', { name: 'Trading account' })).toHaveValue('demo');
  await driver.click(screen.getByRole('button', { name: 'Account menu' }));
  expect(screen.getByRole('menuitem', { name: 'Profile' })).toBeInTheDocument();
  expect(screen.getByRole('menuitem', { name: 'Settings' })).toBeInTheDocument();
  expect(screen.getByRole('menuitem', { name: 'Logout' })).toBeInTheDocument();
});

test('a wallet user has no logout', async () => {
  useSession.setState({ token: 'tok', user: testUser('wallet_eth_ab12cd34') });
  const { user: driver } = renderAt(<Header />);
  await driver.click(screen.getByRole('button', { name: 'Account menu' }));
  expect(screen.getByRole('menuitem', { name: 'Profile' })).toBeInTheDocument();
  expect(screen.queryByRole('menuitem', { name: 'Logout' })).toBeNull();
});

test('tournaments and copy trading are in the desktop navigation for everyone and in the avatar menu; the phone keeps four items in its bottom bar', async () => {
  const { unmount } = renderAt(<Header />);
  const nav = screen.getByRole('navigation', { name: 'Main navigation' });
  expect(within(nav).getAllByRole('link').map((l) => l.textContent)).toEqual(['Markets', 'Trade', 'Contract', 'Tournaments', 'Copy trading', 'Account']);
  expect(within(nav).getByRole('link', { name: 'Copy trading' })).toHaveAttribute('href', '/copy');
  expect(within(nav).getByRole('link', { name: 'Tournaments' })).toHaveAttribute('href', '/tournaments');
  unmount();

  useSession.setState({ token: 'tok', user: testUser('alice_1') });
  const { user: driver, router, unmount: unmountSignedIn } = renderAt(<Header />);
  await driver.click(screen.getByRole('button', { name: 'Account menu' }));
  await driver.click(screen.getByRole('menuitem', { name: 'Copy trading' }));
  expect(router.state.location.pathname).toBe('/copy');
  unmountSignedIn();
  const again = renderAt(<Header />);
  await again.user.click(screen.getByRole('button', { name: 'Account menu' }));
  await again.user.click(screen.getByRole('menuitem', { name: 'Tournaments' }));
  expect(again.router.state.location.pathname).toBe('/tournaments');
  again.unmount();

  useDevice.setState({ width: 390, deviceClass: 'mobile' });
  renderAt(<BottomNav />);
  expect(within(screen.getByRole('navigation', { name: 'Main navigation' })).getAllByRole('link')).toHaveLength(4);
});
