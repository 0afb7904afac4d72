// Price alerts in a real Chromium against a real server: a user sets alerts from the trade
// page a little above and below the price; the first tick that reaches one announces it,
// once, in the notification centre; it leaves the waiting list for the fired list; a reload
// (a new authentication, which reads fired alerts back) does not announce it twice; an alert
// still waiting survives a server restart.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { DESKTOP, launch, openPage, signInPage } from '../lib/browser.mjs';
import { Server } from '../lib/server.mjs';

/** `price` moved by `units` of its last decimal place, as a decimal string (no floats). */
function step(price, precision, units) {
  const [whole, fraction = ''] = price.split('.');
  const scaled = BigInt(whole + fraction.padEnd(precision, '0').slice(0, precision)) + BigInt(units);
  const text = scaled.toString().padStart(precision + 1, '0');
  return precision ? `${text.slice(0, -precision)}.${text.slice(-precision)}` : text;
}

describe('price alerts: set on the trade page, fired once', () => {
  const server = new Server();
  let browser;
  let page;
  let token;

  const bell = () => page.getByRole('button', { name: /^Notifications/ });
  const alertTitles = async () => {
    await bell().click();
    const centre = page.getByRole('dialog', { name: 'Notifications' });
    await centre.getByRole('tab', { name: /^Trade/ }).click();
    const count = await centre.getByText('Price alert', { exact: true }).count();
    await page.keyboard.press('Escape');
    return count;
  };

  before(async () => {
    await server.start();
    const login = await server.signUp('alma_alert');
    token = login.token;
    browser = await launch();
    page = await openPage(browser, { viewport: DESKTOP });
    await signInPage(page, login);
  });

  after(async () => {
    await browser?.close();
    await server.stop();
  });

  test('alerts a step above and below the price: the first reached is announced once', async () => {
    await page.goto(`${server.origin}/trade/BTCUSDT`);
    const market = await server.api('GET', '/markets/BTCUSDT');
    await page.getByRole('button', { name: 'Price alert' }).click();
    const dialog = page.getByRole('dialog', { name: /^Price alert · / });
    // Twenty dollars either side: the simulated walk (a few dollars a tick) soon reaches one,
    // and cannot pass the level between reading the price and setting the alert.
    for (const units of [2000, -2000]) {
      const { price } = await server.api('GET', '/markets/BTCUSDT');
      await dialog.getByLabel('Alert price').fill(step(price, market.precision, units));
      await dialog.getByRole('button', { name: 'Set alert' }).click();
      // Confirmed by the toast: the list may have lost it already, to the next tick.
      await page.getByText(units > 0 ? /^Alert set: price rises to / : /^Alert set: price falls to /).first().waitFor();
    }
    await page.keyboard.press('Escape');

    // The simulated feed moves every quarter second: one of the two is reached soon.
    await page.getByRole('button', { name: /^Notifications, \d+ unread/ }).waitFor({ timeout: 60_000 });
    const fired = await server.api('GET', '/user/price-alerts/fired', { token });
    assert.ok(fired.total >= 1);
    const waiting = await server.api('GET', '/user/price-alerts', { token });
    assert.equal(waiting.waiting.some((a) => a.id === fired.items[0].id), false, 'a fired alert no longer waits');
    assert.equal(fired.items[0].symbol, 'BTCUSDT');
    const seen = await alertTitles();
    assert.ok(seen >= 1);

    // A reload authenticates again and reads fired alerts back: nothing announced twice.
    await page.reload();
    await bell().waitFor();
    const firedNow = (await server.api('GET', '/user/price-alerts/fired', { token })).total;
    assert.equal(await alertTitles(), firedNow, 'one notification per fired alert');
  });

  test('the account page lists fired alerts, and a waiting one survives a restart', async () => {
    await page.goto(`${server.origin}/account/price-alerts`);
    await page.getByRole('heading', { name: 'Fired alerts' }).waitFor();
    await page.getByText(/BTCUSDT (rose|fell) to/).first().waitFor();
    const { price, precision } = await server.api('GET', '/markets/BTCUSDT');
    const far = step(price.split('.')[0], 0, Number(price.split('.')[0]));
    const shown = new Intl.NumberFormat('en-US', { minimumFractionDigits: precision, maximumFractionDigits: precision }).format(Number(far));
    await page.getByLabel('Product').selectOption('BTCUSDT');
    await page.getByLabel('Alert price').fill(far);
    await page.getByRole('button', { name: 'Set alert' }).click();
    const row = page.getByRole('button', { name: `Remove the alert on BTCUSDT at ${shown}` });
    await row.waitFor();

    await server.stop();
    await server.start();
    await page.reload();
    await row.waitFor();
    const waiting = await server.api('GET', '/user/price-alerts', { token });
    assert.ok(waiting.waiting.some((a) => a.price === far));
  });
});
