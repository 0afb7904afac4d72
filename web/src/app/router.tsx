/**
 * The routes of the spec's table (§2). Every screen is a lazy chunk named as the spec names
 * it (vite.config.ts): Register, StockList, TradeDetail, AccountPage, ContractRecord, and
 * Login for the sign-in tab; the trader's shell is one more. Each loads its texts with its
 * code. Guards are loaders defined here, so they run before any chunk is fetched. The
 * back-office (`/admin/*`) is one chunk with its own routes and guards, never loaded by the
 * trader's pages.
 */
import { createBrowserRouter, redirect } from 'react-router';

import { ensureSections } from '@/lib/i18n';

import { guestOnly, requireUser, toLastVisited, tradeCode } from './guards';
import { RootLayout, RouteError } from './layouts/root-layout';

/** Routes that only redirect render nothing (and say so, so the router does not warn). */
const Redirecting = () => null;

/** A lazy route module, with the text sections its screen needs. */
async function screen<T>(load: Promise<T>, sections: readonly string[]): Promise<T> {
  const [module] = await Promise.all([load, ensureSections(sections)]);
  return module;
}

export function createRouter() {
  return createBrowserRouter([
    {
      path: '/',
      Component: RootLayout,
      ErrorBoundary: RouteError,
      HydrateFallback: () => null,
      children: [
        {
          lazy: () => screen(import('./layouts/user-layout'), ['notifications']),
          children: [
            { index: true, loader: () => redirect('/stocks'), Component: Redirecting },
            { path: 'stocks', lazy: () => screen(import('./routes/stock-list'), ['markets']) },
            { path: 'trade', loader: toLastVisited, Component: Redirecting },
            { path: 'trade/*', loader: tradeCode, lazy: () => screen(import('./routes/trade-detail'), ['trade', 'markets', 'alerts']) },
            { path: 'contract-record', loader: requireUser, lazy: () => screen(import('./routes/contract-record'), ['records']) },
            { path: 'account', loader: requireUser, lazy: () => screen(import('./routes/account-page'), ['account', 'wallet']) },
            { path: 'account/wallet', loader: requireUser, lazy: () => screen(import('./routes/wallet-page'), ['wallet']) },
            { path: 'account/history', loader: requireUser, lazy: () => screen(import('./routes/history-page'), ['wallet']) },
            { path: 'account/statement', loader: requireUser, lazy: () => screen(import('./routes/statement-page'), ['wallet']) },
            { path: 'account/responsible-trading', loader: requireUser, lazy: () => screen(import('./routes/responsible-page'), ['responsible']) },
            { path: 'account/notifications', loader: requireUser, lazy: () => import('./routes/notifications-page') },
            { path: 'account/price-alerts', loader: requireUser, lazy: () => screen(import('./routes/price-alerts-page'), ['alerts']) },
            { path: 'account/profile', loader: requireUser, lazy: () => screen(import('./routes/profile-page'), ['profile']) },
            { path: 'account/security', loader: requireUser, lazy: () => screen(import('./routes/security-page'), ['security']) },
            { path: 'account/invitations', loader: requireUser, lazy: () => screen(import('./routes/invitations-page'), ['invite']) },
            // Copy trading: the ranking and a trader's profile are public; the user's own part needs a token (checked on the page).
            { path: 'copy', lazy: () => screen(import('./routes/copy-page'), ['copy']) },
            { path: 'copy/:uid', lazy: () => screen(import('./routes/trader-page'), ['copy']) },
            // Tournaments: the lobby and a tournament's page are public; entering needs a token (checked on the page).
            { path: 'tournaments', lazy: () => screen(import('./routes/tournaments-page'), ['tournaments']) },
            { path: 'tournaments/:id', lazy: () => screen(import('./routes/tournament-page'), ['tournaments']) },
            { path: '*', lazy: () => import('./routes/not-found') },
          ],
        },
        { path: 'login', loader: guestOnly, lazy: () => import('./routes/login') },
        { path: 'login/register', loader: guestOnly, lazy: () => import('./routes/register') },
        { path: 'admin/*', lazy: () => screen(import('./routes/admin'), ['admin']) },
      ],
    },
  ]);
}
