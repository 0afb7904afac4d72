// Responsible trading in a real Chromium: a user excludes themselves from trading until a
// date (confirmed first); orders are refused with the exclusion's end; the exclusion survives
// a server restart and cannot be shortened.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { PHONE, launch, openPage, signInPage } from '../lib/browser.mjs';
import { Server } from '../lib/server.mjs';

describe('responsible trading: self-exclusion', () => {
  const server = new Server();
  let browser;
  let page;
  let token;
  const order = { symbol: 'BTCUSDT', direction: 'up', amount: '10', duration: 60, account: 'demo' };

  async function placeOrder() {
    const answer = await fetch(`${server.origin}/api/trade/orders`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify(order),
    });
    return { status: answer.status, ...(await answer.json()) };
  }

  before(async () => {
    await server.start();
    const login = await server.signUp('rita_rt');
    token = login.token;
    browser = await launch();
    page = await openPage(browser, { viewport: PHONE });
    await signInPage(page, login);
  });

  after(async () => {
    await browser?.close();
    await server.stop();
  });

  test('the user excludes themselves until a date, after a confirmation', async () => {
    assert.equal((await placeOrder()).success, true, 'trading works before');
    await page.goto(`${server.origin}/account`);
    await page.getByRole('link', { name: 'Responsible trading' }).click();
    await page.waitForURL(/\/account\/responsible-trading$/);
    const day = new Date(Date.now() + 3 * 86_400_000);
    const text = `${day.getFullYear()}-${String(day.getMonth() + 1).padStart(2, '0')}-${String(day.getDate()).padStart(2, '0')}`;
    await page.getByLabel('Exclude me from trading until', { exact: true }).fill(text);
    await page.getByRole('button', { name: 'Save limits' }).click();
    await page.getByRole('dialog', { name: 'Exclude yourself from trading?' }).waitFor();
    await page.getByRole('button', { name: 'Exclude me' }).click();
    await page.getByTestId('excluded-until').waitFor();
  });

  test('orders are refused with the exclusion end, before and after a restart', async () => {
    const refused = await placeOrder();
    assert.equal(refused.status, 403);
    assert.equal(refused.code, 'SELF_EXCLUDED');
    assert.match(refused.message, /^You have excluded yourself from trading until \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC$/);

    await server.stop();
    await server.start();
    const again = await placeOrder();
    assert.equal(again.code, 'SELF_EXCLUDED');
    await page.reload();
    await page.getByTestId('excluded-until').waitFor();

    // Asking for no exclusion does not shorten it.
    await page.getByLabel('Daily loss limit', { exact: true }).fill('');
    await page.getByRole('button', { name: 'Save limits' }).click();
    await page.getByTestId('excluded-until').waitFor();
    assert.equal((await placeOrder()).code, 'SELF_EXCLUDED');
  });

  test('no errors in the browser console or the server log', () => {
    // While the server restarts, the browser logs the refused connections; nothing else.
    const unexpected = page.problems.filter((p) => !/ERR_CONNECTION_REFUSED|WebSocket connection to .* failed/.test(p));
    assert.deepEqual(unexpected, []);
    assert.deepEqual(server.errors(), []);
  });
});
