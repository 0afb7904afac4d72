// Early close in a real Chromium against a real server, in English on a desktop and in Arabic
// on a phone: a demo contract's live offer moves with the market, the trader sells it at the
// offer shown after a confirm step, the balance and the records show the sale, its proof
// carries every figure, and trading-verify re-derives it from the archived ticks.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';

import { DESKTOP, PHONE, launch, openPage, signInPage } from '../lib/browser.mjs';
import { Server } from '../lib/server.mjs';

const ROOT = resolve(import.meta.dirname, '../../..');
const VERIFY = process.env.TRADING_VERIFY_BIN ?? join(ROOT, 'target/debug/trading-verify');
/** Long enough to sell well before expiry. */
const DURATION_S = 60;

function catalogue(language) {
  return JSON.parse(readFileSync(join(ROOT, `locales/${language}.json`), 'utf8')).web;
}

function escape(text) {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The part of a message before its first placeholder. */
function prefix(text) {
  return text.split('{{')[0].trim();
}

for (const [language, viewport] of [
  ['en-US', DESKTOP],
  ['ar-AR', PHONE],
]) {
  describe(`early close in ${language} at ${viewport.width}x${viewport.height}`, () => {
    const server = new Server();
    const web = catalogue(language);
    let browser;
    let page;
    let login;
    let contractId;
    let credited;

    before(async () => {
      await server.start();
      login = await server.signUp(`s${Date.now().toString(36)}${language.slice(0, 2)}`);
      browser = await launch();
      page = await openPage(browser, { viewport, language });
      await signInPage(page, login);
    });

    after(async () => {
      await browser?.close();
      await server.stop();
      assert.deepEqual(server.errors(), [], 'no error in the server log');
    });

    test('an open contract shows its live offer, which moves with the market', async () => {
      await page.goto(`${server.origin}/trade/BTCUSDT`);
      await page.locator('[data-testid="price-chart"][data-ready="true"]').waitFor();
      const toggle = page.getByRole('button', { name: web.trade.panel.toggle });
      if ((await toggle.getAttribute('aria-expanded')) === 'false') await toggle.click();
      await page.getByLabel(web.trade.panel.amount).fill('10');
      const duration = web.time.minutes.replace('{{count}}', String(DURATION_S / 60));
      await page.getByRole('radio', { name: new RegExp(`^${escape(duration)}`) }).click();
      await page.getByRole('button', { name: web.trade.panel.buyUp, exact: true }).click();
      const confirm = page.getByRole('dialog', { name: web.trade.confirm.title });
      await confirm.getByRole('button', { name: web.trade.confirm.submit }).click();
      const card = page.locator('[data-testid^="contract-"][data-status="open"]').first();
      await card.waitFor({ timeout: 10_000 });
      contractId = Number((await card.getAttribute('data-testid')).replace('contract-', ''));
      const sell = card.getByRole('button', { name: new RegExp(escape(prefix(web.sale.sellLabel))) });
      await sell.waitFor({ timeout: 30_000 });
      const first = await sell.innerText();
      // The simulated market moves every quarter second: the offer follows it.
      await page.waitForFunction(
        ([selector, before]) => {
          const button = document.querySelector(selector);
          return button !== null && button.innerText !== before;
        },
        [`[data-testid="contract-${contractId}"] .btn-sell`, first],
        { timeout: 30_000 },
      );
      // A contract's offer asked for before its entry is refused (409, not entered): the
      // browser logs the status; nothing else may appear.
      assert.deepEqual(page.problems.filter((p) => !/status of 409/.test(p)), []);
    });

    if (viewport === PHONE) {
      test('scrolled into view, the sell button stops above the order bar, not under it', async () => {
        // As the browser scrolls for find-in-page or a screen reader: to the nearest edge.
        await page.evaluate(() => window.scrollTo(0, 0));
        const sell = page.locator(`[data-testid="contract-${contractId}"] .btn-sell`);
        const [button, bar] = await sell.evaluate((element) => {
          element.scrollIntoView({ block: 'nearest' });
          const side = document.querySelector('.trade-side');
          return [element.getBoundingClientRect().bottom, side.getBoundingClientRect().top];
        });
        assert.ok(button <= bar, `the button ends at ${button}px, the order bar starts at ${bar}px`);
      });
    }

    test('the sale is confirmed with its amount; the balance and the records show it', async () => {
      const before = await server.api('GET', '/wallet/balance?account=demo', { token: login.token });
      const card = page.locator(`[data-testid="contract-${contractId}"]`);
      await card.getByRole('button', { name: new RegExp(escape(prefix(web.sale.sellLabel))) }).click();
      const dialog = page.getByRole('dialog', { name: web.sale.title });
      await dialog.getByText(web.sale.receive).waitFor();
      // The market moves four times a second: when the offer fell before the sale was applied,
      // nothing is sold and the dialog shows the new offer, which the trader confirms again.
      const sold = page.getByText(prefix(web.sale.sold)).first();
      const changed = dialog.getByRole('alert').filter({ hasText: prefix(web.sale.changed) });
      for (let attempt = 0; ; attempt += 1) {
        await dialog.getByRole('button', { name: new RegExp(escape(prefix(web.sale.confirm))) }).click();
        await sold.or(changed).first().waitFor({ timeout: 10_000 });
        if (await sold.isVisible()) break;
        assert.ok(attempt < 10, 'sold within ten confirmations');
      }
      const record = await server.api('GET', `/trade/contracts/${contractId}`, { token: login.token });
      assert.equal(record.outcome, 'sold');
      credited = record.credited;
      assert.equal(record.sale.offer, credited);
      const after = await server.api('GET', '/wallet/balance?account=demo', { token: login.token });
      const cents = (value) => Math.round(Number(value) * 100);
      assert.equal(cents(after.available), cents(before.available) + cents(credited));

      await page.goto(`${server.origin}/contract-record`);
      await page.getByRole('tab', { name: web.records.settled, selected: true }).waitFor();
      await page.locator('.record-row', { hasText: web.records.outcome.sold }).first().waitFor();
      // A sale refused because the offer fell (409 OFFER_CHANGED) is the rule at work, and the
      // browser logs its status; nothing else may appear.
      const unexpected = page.problems.filter((p) => !/status of 409/.test(p));
      assert.deepEqual(unexpected, []);
    });

    test('the proof carries the sale and trading-verify re-derives it from the archived ticks', async () => {
      const proof = await server.api('GET', `/proofs/${contractId}`);
      assert.equal(proof.contract.outcome, 'sold');
      assert.equal(proof.contract.sale.offer, credited);
      assert.ok(proof.contract.sale.returns >= 30, 'the volatility window');
      const { stdout } = await promisify(execFile)(VERIFY, ['--api', server.origin]);
      assert.match(stdout, /sold: 1\b/);
      assert.match(stdout, /\b0 mismatches, 0 errors/);
    });
  });
}
