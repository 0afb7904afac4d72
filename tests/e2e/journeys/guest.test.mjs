// A guest arrives: live prices, the route table's redirects, and a buy that asks to log in.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { DESKTOP, launch, openPage } from '../lib/browser.mjs';
import { Server } from '../lib/server.mjs';

describe('a guest', () => {
  const server = new Server();
  let browser;
  let page;

  before(async () => {
    await server.start();
    browser = await launch();
    page = await openPage(browser, { viewport: DESKTOP });
  });

  after(async () => {
    await browser?.close();
    await server.stop();
  });

  test('arrives at / and sees the market list with live prices', async () => {
    const response = await page.goto(`${server.origin}/`);
    assert.equal(response.status(), 200);
    await page.waitForURL(/\/stocks$/);
    const price = page.getByTestId('price-BTCUSDT');
    await price.waitFor();
    const first = await price.innerText();
    // The simulator ticks 4 times a second: the price moves on screen without a reload.
    await page.waitForFunction((before) => document.querySelector('[data-testid="price-BTCUSDT"]')?.textContent !== before, first, { timeout: 15_000 });
    assert.equal(await page.getByRole('row').count() > 20, true, 'at least 20 crypto pairs');
  });

  test('finds forex pairs and searches', async () => {
    await page.getByRole('tab', { name: 'Forex' }).click();
    await page.getByRole('row', { name: /EUR\/USD/ }).waitFor();
    assert.ok((await page.getByRole('row').count()) >= 11, 'at least 10 forex pairs');
    await page.getByRole('searchbox', { name: 'Search markets' }).fill('gbp');
    await page.getByRole('row', { name: /GBP\/USD/ }).waitFor();
    assert.equal(await page.getByRole('row', { name: /EUR\/USD/ }).count(), 0);
  });

  test('is sent to /login from the account and the records, and cannot see the bell', async () => {
    for (const path of ['/account', '/contract-record']) {
      await page.goto(`${server.origin}${path}`);
      await page.waitForURL(/\/login$/);
    }
    await page.goto(`${server.origin}/stocks`);
    assert.equal(await page.getByRole('button', { name: /Notifications/ }).count(), 0);
    await page.getByRole('link', { name: 'Guest: sign in' }).click();
    await page.waitForURL(/\/login$/);
  });

  test('opens a pair by a code with a slash, sees the chart and the panel, and is asked to log in to buy', async () => {
    await page.goto(`${server.origin}/trade/ETH/USDT`);
    await page.waitForURL(/\/trade\/ETHUSDT$/);
    await page.locator('[data-testid="price-chart"][data-ready="true"]').waitFor();
    await page.getByLabel('Amount (USDT)').fill('10');
    await page.getByRole('button', { name: 'Buy Up' }).click();
    await page.getByRole('alert').filter({ hasText: 'Please login first' }).waitFor();
    // /trade now remembers ETHUSDT.
    await page.goto(`${server.origin}/trade`);
    await page.waitForURL(/\/trade\/ETHUSDT$/);
  });

  test('gets the app for any client route, a JSON 404 for an unknown API path', async () => {
    const app = await fetch(`${server.origin}/contract-record`);
    assert.equal(app.status, 200);
    assert.match(app.headers.get('content-type'), /text\/html/);
    const api = await fetch(`${server.origin}/api/nope`);
    assert.equal(api.status, 404);
    assert.equal((await api.json()).code, 'NOT_FOUND');
  });

  test('no errors in the browser console or the server log', () => {
    assert.deepEqual(page.problems, []);
    assert.deepEqual(server.errors(), []);
  });
});
