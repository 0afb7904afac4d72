import { render, screen } from '@testing-library/react';
import { RouterProvider, createMemoryRouter } from 'react-router';

import { useSession } from '@/stores/session';

import { DEFAULT_SYMBOL, guestOnly, requireUser, toLastVisited, tradeCode } from './guards';

/** The guarded part of the route table, with stand-in screens. */
function app(path: string) {
  const screenFor = (name: string) => () => <p data-testid="screen">{name}</p>;
  const router = createMemoryRouter(
    [
      {
        HydrateFallback: () => null,
        children: [
      { path: '/stocks', Component: screenFor('stocks') },
      { path: '/login', loader: guestOnly, Component: screenFor('login') },
      { path: '/account', loader: requireUser, Component: screenFor('account') },
      { path: '/contract-record', loader: requireUser, Component: screenFor('records') },
      { path: '/trade', loader: toLastVisited, Component: () => null },
      { path: '/trade/*', loader: tradeCode, Component: screenFor('trade') },
        ],
      },
    ],
    { initialEntries: [path] },
  );
  render(<RouterProvider router={router} />);
  return router;
}

beforeEach(() => useSession.setState({ token: null, user: null }));

test('account and contract records need a user token, else /login', async () => {
  for (const path of ['/account', '/contract-record']) {
    const router = app(path);
    expect(await screen.findByText('login')).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/login');
    router.dispose();
  }
  useSession.setState({ token: 'tok' });
  const router = app('/account');
  expect(await screen.findAllByText('account')).not.toHaveLength(0);
  expect(router.state.location.pathname).toBe('/account');
});

test('a signed-in user cannot open /login: it goes to /stocks', async () => {
  useSession.setState({ token: 'tok' });
  const router = app('/login');
  expect(await screen.findByText('stocks')).toBeInTheDocument();
  expect(router.state.location.pathname).toBe('/stocks');
});

test('/trade goes to the last visited pair, BTCUSDT at first', async () => {
  const first = app('/trade');
  await screen.findByText('trade');
  expect(first.state.location.pathname).toBe(`/trade/${DEFAULT_SYMBOL}`);
  first.dispose();

  const visit = app('/trade/ETHUSDT');
  await screen.findAllByText('trade');
  expect(window.localStorage.getItem('lastVisitedStock')).toBe('ETHUSDT');
  visit.dispose();

  const again = app('/trade');
  await screen.findAllByText('trade');
  expect(again.state.location.pathname).toBe('/trade/ETHUSDT');
});

test('a slash inside the code is removed and the user redirected; a missing code is BTCUSDT', async () => {
  const slash = app('/trade/eth/usdt');
  await screen.findByText('trade');
  expect(slash.state.location.pathname).toBe('/trade/ETHUSDT');
  expect(window.localStorage.getItem('lastVisitedStock')).toBe('ETHUSDT');
  slash.dispose();

  // `/trade/` is `/trade` to the router; an empty code reaching the guard goes to BTCUSDT.
  let thrown: unknown;
  try {
    tradeCode({ params: { '*': '' } });
  } catch (response) {
    thrown = response;
  }
  expect((thrown as Response).headers.get('Location')).toBe('/trade/BTCUSDT');
});
