// The back-office in a real Chromium against a real server: the trader's pages never load
// its code; /admin needs the admin token; the login refuses a wrong password and signs in
// with the right one; the dashboard shows the platform's figures; the pending-recharge badge
// counts a user's deposit and rises (animated) at the next 60 s poll when another arrives;
// the admin approves it and the trader's open page shows the new balance live; a session
// ended on the server returns to the login with the expired-session message.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { DESKTOP, launch, openPage, signInPage } from '../lib/browser.mjs';
import { ADMIN_PASSWORD, PNG, Server } from '../lib/server.mjs';

describe('back-office: sign-in, dashboard, badges, session end', () => {
  const server = new Server();
  let browser;

  /** A pending deposit of `amount` from a user. */
  async function pendingDeposit(token, amount) {
    const form = new FormData();
    form.append('file', new Blob([PNG], { type: 'image/png' }), 'receipt.png');
    const uploaded = await fetch(`${server.origin}/api/upload`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
    const receipt = (await uploaded.json()).data.name;
    await server.api('POST', '/wallet/deposits', {
      token,
      body: { amount, method: 'bank_transfer', accountName: 'E2E', accountNumber: '123456', bankName: 'E2E Bank', receipt },
    });
  }

  before(async () => {
    await server.start();
    browser = await launch();
  });

  after(async () => {
    await browser?.close();
    await server.stop();
  });

  test("the trader's pages never load the back-office's code", async () => {
    const page = await openPage(browser, { viewport: DESKTOP });
    const scripts = [];
    page.on('request', (request) => request.resourceType() === 'script' && scripts.push(new URL(request.url()).pathname));
    for (const path of ['/stocks', '/login', '/trade/BTCUSDT']) {
      await page.goto(`${server.origin}${path}`);
      await page.getByRole('main').first().waitFor();
    }
    assert.ok(scripts.length > 5, `scripts loaded: ${scripts}`);
    assert.deepEqual(scripts.filter((s) => /\/(Admin|admin)[-.]/.test(s)), []);
    await page.goto(`${server.origin}/admin`);
    await page.getByRole('heading', { name: 'Administrator sign-in' }).waitFor();
    assert.ok(scripts.some((s) => /\/Admin-/.test(s)), 'the back-office chunk loads for /admin');
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });

  test('sign-in, dashboard, a rising badge, logout and an ended session', async () => {
    const trader = await server.signUp('bo_trader');
    await pendingDeposit(trader.token, '120');

    const page = await openPage(browser, { viewport: DESKTOP });
    // The page's clock is ours, so the 60 s poll can be reached without waiting a minute.
    await page.clock.install();
    await page.goto(`${server.origin}/admin/dashboard`);
    await page.waitForURL('**/admin/login');

    await page.getByLabel('Username').fill('admin');
    await page.getByLabel('Password').fill('not-the-password');
    await page.getByRole('button', { name: 'Login' }).click();
    await page.getByText('Incorrect admin username or password').waitFor();
    await page.getByLabel('Password').fill(ADMIN_PASSWORD);
    await page.getByRole('button', { name: 'Login' }).click();
    await page.waitForURL('**/admin/dashboard');
    assert.ok(await page.evaluate(() => localStorage.getItem('admin_token')), 'admin_token kept');
    assert.equal(await page.evaluate(() => JSON.parse(localStorage.getItem('admin_info')).role), 'super');

    // Now: the trader and the pending deposit are counted.
    const now = page.getByRole('region', { name: 'Now' });
    await now.getByText('Pending recharges').waitFor();
    assert.match(await now.textContent(), /Users1(?!\d)/);
    const badge = page.getByRole('link', { name: 'Pending recharge orders: 1' });
    await badge.waitFor();
    assert.equal(await badge.getAttribute('class'), 'admin-badge', 'the first poll does not animate');

    // Another deposit: the next poll (60 s later on the page's clock) raises the badge.
    await pendingDeposit(trader.token, '80');
    await page.clock.runFor(60_000);
    const risen = page.getByRole('link', { name: 'Pending recharge orders: 2' });
    await risen.waitFor();
    assert.equal(await risen.getAttribute('class'), 'admin-badge rising');

    // The trader watches their account centre (real account) while the admin handles it.
    const app = await openPage(browser, { viewport: DESKTOP });
    await signInPage(app, trader);
    await app.goto(`${server.origin}/account`);
    await app.getByRole('main').getByRole('button', { name: 'Real', exact: true }).click();
    await app.getByTestId('available-balance').getByText('0.00').waitFor();

    // Handle one: the receipt, then approval; the user's balance is credited, the badge falls.
    await page.getByRole('navigation', { name: 'Back-office menu' }).getByRole('link', { name: 'Recharge orders' }).click();
    await page.waitForURL('**/admin/recharge-orders');
    const orders = page.getByRole('listitem').filter({ hasText: '120.00 USDT' });
    await orders.getByRole('button', { name: 'View receipt' }).click();
    const receipt = page.getByRole('dialog', { name: /^Receipt of order #/ });
    await receipt.getByRole('img').waitFor();
    assert.ok(await receipt.getByRole('img').evaluate((img) => img.complete && img.naturalWidth > 0), 'the receipt image is shown');
    await page.keyboard.press('Escape');
    await orders.getByRole('button', { name: /^Approve order #/ }).click();
    const confirm = page.getByRole('dialog', { name: /^Approve order #\d+\?$/ });
    assert.match(await confirm.textContent(), /120\.00 USDT will be credited/);
    await confirm.getByRole('button', { name: 'Approve' }).click();
    await page.getByRole('link', { name: 'Pending recharge orders: 1' }).waitFor();
    await page.getByRole('listitem').filter({ hasText: '120.00 USDT' }).waitFor({ state: 'detached' });
    const balance = await server.api('GET', '/wallet/balance', { token: trader.token });
    assert.equal(balance.available, '120.00');
    // ... and the trader's open page shows it at once, pushed by the server.
    await app.getByTestId('available-balance').getByText('120.00').waitFor();
    assert.deepEqual(app.problems, []);
    await app.context().close();

    // The admin-name menu and the sidebar: logout from the sidebar.
    await page.getByRole('navigation', { name: 'Back-office menu' }).getByRole('button', { name: 'Logout' }).click();
    await page.waitForURL('**/admin/login');
    assert.equal(await page.evaluate(() => localStorage.getItem('admin_token')), null);

    // A session the server ended (here: logged out elsewhere) returns to the login, saying so.
    await page.getByLabel('Username').fill('admin');
    await page.getByLabel('Password').fill(ADMIN_PASSWORD);
    await page.getByRole('button', { name: 'Login' }).click();
    await page.waitForURL('**/admin/dashboard');
    const token = await page.evaluate(() => localStorage.getItem('admin_token'));
    await page.getByRole('region', { name: 'Now' }).waitFor();
    await server.api('POST', '/admin/logout', { token, body: {} });
    // The next badge poll is answered 401.
    await page.clock.runFor(60_000);
    await page.waitForURL('**/admin/login');
    await page.getByText('Login expired, please log in again').waitFor();
    assert.equal(await page.evaluate(() => localStorage.getItem('admin_info')), null);

    // Only the expected refusals reached the console (the wrong password, the ended session).
    const unexpected = page.problems.filter((p) => !/status of (400|401)/.test(p));
    assert.deepEqual(unexpected, []);
    await page.context().close();
  });
});
