// The server restarted under a signed-in trader: the app shows the connection lost and its
// attempts, reconnects on its own when the server is back, subscribes again (prices move
// again), authenticates again (the private stream works: a new order's events arrive) and
// reads balances and open contracts again. Nothing is sent twice.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { DESKTOP, launch, openPage } from '../lib/browser.mjs';
import { Server } from '../lib/server.mjs';

const SHORT_DURATION_S = 5;

describe('a server restart mid-session', () => {
  const server = new Server();
  let browser;
  let page;
  let token;
  const orders = [];

  before(async () => {
    await server.start();
    await server.addRule(SHORT_DURATION_S);
    const username = `r${Date.now().toString(36)}`;
    await server.api('POST', '/login/register', { body: { username, email: `${username}@example.com`, password: 'secret1' } });
    const login = await server.api('POST', '/login/login', { body: { username, password: 'secret1' } });
    token = login.token;
    browser = await launch();
    page = await openPage(browser, { viewport: DESKTOP });
    await page.addInitScript(
      ({ token, user }) => {
        if (!sessionStorage.getItem('seeded')) {
          localStorage.setItem('token', token);
          localStorage.setItem('user', JSON.stringify(user));
          sessionStorage.setItem('seeded', '1');
        }
      },
      { token, user: login.user },
    );
    page.on('request', (request) => {
      if (request.url().endsWith('/api/trade/orders')) orders.push(request.url());
    });
  });

  after(async () => {
    await browser?.close();
    await server.stop();
  });

  const tickIndex = async () => Number((await page.getByTestId('last-price').getAttribute('data-tick-index')) || 0);

  test('the trade screen is live', async () => {
    await page.goto(`${server.origin}/trade/BTCUSDT`);
    await page.locator('[data-testid="price-chart"][data-ready="true"]').waitFor();
    await page.waitForFunction(() => Number(document.querySelector('[data-testid="last-price"]')?.dataset.tickIndex) > 0);
    await page.getByRole('img', { name: 'Connection: Live' }).waitFor();
  });

  test('the loss of the server is shown with the attempt count', async () => {
    await server.stop();
    await page.getByText(/Connection lost, reconnecting \(1\/5\)/).waitFor({ timeout: 10_000 });
  });

  test('when the server is back, the app reconnects, resubscribes and reauthenticates', async () => {
    const before = await tickIndex();
    // After the reconnect the app reads balances and open contracts again (never resends).
    const refills = [
      page.waitForRequest((r) => r.url().includes('/api/wallet/balance'), { timeout: 20_000 }),
      page.waitForRequest((r) => r.url().includes('/api/trade/contracts?status=open'), { timeout: 20_000 }),
    ];
    await server.start();
    await page.getByRole('img', { name: 'Connection: Live' }).waitFor({ timeout: 15_000 });
    await Promise.all(refills);
    assert.equal(await page.getByText(/Connection lost/).count(), 0);
    // Ticks flow again on the restored subscription (indexes continue the log).
    await page.waitForFunction((b) => Number(document.querySelector('[data-testid="last-price"]')?.dataset.tickIndex) > b, before, { timeout: 10_000 });
    // The private stream is back: a new contract is seen entering and settling.
    await page.getByLabel('Amount (USDT)').fill('10');
    await page.getByRole('radio', { name: /^5 s/ }).click();
    await page.getByRole('button', { name: 'Buy Down' }).click();
    await page.getByRole('dialog', { name: 'Confirm trade' }).getByRole('button', { name: 'Confirm order' }).click();
    await page.locator('[data-testid^="contract-"][data-status="settled"], [data-testid^="contract-"][data-status="void"]').first().waitFor({ timeout: 20_000 });
    assert.equal(orders.length, 1, 'one click, one order');
  });

  test("the balance shown is the server's", async () => {
    const demo = await server.api('GET', '/wallet/balance?account=demo', { token });
    const expected = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(demo.available);
    await page.locator('.account-switch-balance', { hasText: expected }).waitFor();
  });

  test('the only errors in the browser are the refused connections while the server was down', () => {
    const unexpected = page.problems.filter((p) => !/ERR_CONNECTION_REFUSED|WebSocket connection to .* failed/.test(p));
    assert.deepEqual(unexpected, []);
    assert.deepEqual(server.errors(), []);
  });
});
