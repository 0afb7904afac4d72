// The trader's journey in English and in Arabic, in a real Chromium against a real server:
// register (every rule first refused with its message), log in, open BTCUSDT and see a chart
// full of history, switch period, add indicators, place a demo contract, watch it enter and
// settle, and find it in the records with its ticks.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { DESKTOP, PHONE, launch, openPage } from '../lib/browser.mjs';
import { Server } from '../lib/server.mjs';

/** A contract duration short enough to watch: the admin publishes it as a rule. */
const SHORT_DURATION_S = 5;

async function catalogue(language) {
  const { readFileSync } = await import('node:fs');
  const { resolve } = await import('node:path');
  return JSON.parse(readFileSync(resolve(import.meta.dirname, `../../../locales/${language}.json`), 'utf8')).web;
}

/** The texts the journey looks for, from the catalogue of its language. */
async function textsFor(language) {
  const web = await catalogue(language);
  return {
    register: web.auth.register,
    login: web.auth.login,
    username: web.auth.username,
    email: web.auth.email,
    password: web.auth.password,
    confirm: web.auth.confirmPassword,
    terms: web.auth.agreeTerms,
    usernameLength: web.auth.validation.usernameLength,
    mismatch: web.auth.validation.passwordsMismatch,
    agree: web.auth.validation.terms,
    registered: web.auth.registered,
    loginButton: web.auth.loginButton,
    candles: web.trade.candles,
    buyUp: web.trade.panel.buyUp,
    amount: web.trade.panel.amount,
    panelToggle: web.trade.panel.toggle,
    confirmTitle: web.trade.confirm.title,
    confirmOrder: web.trade.confirm.submit,
    ruleEntry: web.trade.confirm.ruleEntry,
    waitingOrProgress: [web.trade.live.waitingEntry, web.trade.live.inProgress, web.trade.live.waitingSettlement],
    settledTexts: [
      web.trade.live.settledProfit.split('{{')[0].trim(),
      web.trade.live.settledLoss.split('{{')[0].trim(),
      web.trade.live.settledTie,
      web.trade.live.settledVoid,
    ],
    records: web.records.title,
    settledTab: web.records.settled,
    entryTick: web.records.entryTick,
    exitTick: web.records.exitTick,
    details: web.records.details,
    proof: web.records.proof,
    tooSoon: web.trade.periodTooSoon,
    rsi: web.trade.indicatorNames.rsi,
    navContract: web.nav.contract,
    period5m: web.trade.periods['5m'],
    period15m: web.trade.periods['15m'],
    chartPeriod: web.trade.period,
    chartType: web.trade.chartType,
    baseline: web.trade.chartTypes.baseline,
    baselineHint: web.trade.baselineHint,
    demo: web.header.demo,
    shortDuration: web.time.seconds.replace('{{count}}', String(SHORT_DURATION_S)),
    userMenu: web.header.userMenu,
    logout: web.header.logout,
    expired: web.auth.errors.sessionExpired,
  };
}

function escape(text) {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

for (const [language, viewport] of [
  ['en-US', DESKTOP],
  ['ar-AR', PHONE],
]) {
  describe(`trader journey in ${language} at ${viewport.width}x${viewport.height}`, () => {
    const server = new Server();
    let browser;
    let page;
    let t;
    const user = `t${Date.now().toString(36)}${language.slice(0, 2)}`;

    before(async () => {
      t = await textsFor(language);
      await server.start();
      await server.addRule(SHORT_DURATION_S);
      browser = await launch();
      page = await openPage(browser, { viewport, language });
    });

    after(async () => {
      await browser?.close();
      await server.stop();
    });

    test('the page is in the chosen language and direction', async () => {
      await page.goto(`${server.origin}/login/register`);
      assert.equal(await page.getAttribute('html', 'lang'), language);
      assert.equal(await page.getAttribute('html', 'dir'), language === 'ar-AR' ? 'rtl' : 'ltr');
    });

    test('registration refuses bad input with the spec messages, then succeeds', async () => {
      const form = page.locator('form');
      await page.getByLabel(t.username, { exact: true }).fill('ab');
      await page.getByLabel(t.email, { exact: true }).fill(`${user}@example.com`);
      await page.getByLabel(t.password, { exact: true }).fill('secret1');
      await page.getByLabel(t.confirm, { exact: true }).fill('secret2');
      await form.getByRole('button', { name: t.register, exact: true }).click();
      await page.getByText(t.usernameLength).waitFor();
      await page.getByText(t.mismatch).waitFor();
      await page.getByText(t.agree).waitFor();

      await page.getByLabel(t.username, { exact: true }).fill(user);
      await page.getByLabel(t.confirm, { exact: true }).fill('secret1');
      await page.getByLabel(t.terms).check();
      await form.getByRole('button', { name: t.register, exact: true }).click();
      await page.getByText(t.registered).waitFor();
      await page.waitForURL(/\/login$/);
      // The Login tab is shown, with an empty form.
      await page.locator('[role="tab"][aria-selected="true"]', { hasText: t.login }).waitFor();
      assert.equal(await page.getByLabel(t.username, { exact: true }).inputValue(), '');
    });

    test('login goes home with the balance in the header', async () => {
      await page.getByLabel(t.username, { exact: true }).fill(user);
      await page.getByLabel(t.password, { exact: true }).fill('secret1');
      await page.locator('form').getByRole('button', { name: t.loginButton, exact: true }).click();
      await page.waitForURL(/\/stocks$/);
      // A new user starts on the demo account with 10,000 USDT.
      await page.locator('.account-switch', { hasText: t.demo }).waitFor();
      await page.locator('.account-switch-balance', { hasText: '10,000.00' }).waitFor();
    });

    test('BTCUSDT opens with a chart full of history; periods switch, too fast is refused', async () => {
      await page.goto(`${server.origin}/trade/BTC/USDT`);
      await page.waitForURL(/\/trade\/BTCUSDT$/);
      const chart = page.getByTestId('price-chart');
      await page.locator('[data-testid="price-chart"][data-ready="true"]').waitFor();
      assert.ok(Number(await chart.getAttribute('data-candles')) >= 100, 'the chart opens with stored history');

      const periods = page.getByRole('group', { name: t.chartPeriod });
      await periods.getByRole('button', { name: t.period5m, exact: true }).click();
      await periods.getByRole('button', { name: t.period15m, exact: true }).click();
      await page.getByText(t.tooSoon).waitFor();
      assert.equal(await chart.getAttribute('data-period'), '5m');
      await page.locator('[data-testid="price-chart"][data-ready="true"][data-period="5m"]').waitFor();
      assert.ok(Number(await chart.getAttribute('data-candles')) >= 100);
    });

    test('the chart changes form without asking for its history again, and the device keeps the choice', async () => {
      const chart = page.getByTestId('price-chart');
      const candles = await chart.getAttribute('data-candles');
      const form = page.getByRole('combobox', { name: t.chartType });
      await form.selectOption('heikinAshi');
      await page.locator('[data-testid="price-chart"][data-ready="true"][data-type="heikinAshi"]').waitFor();
      assert.equal(await chart.getAttribute('data-candles'), candles, 'the same candles, re-drawn');
      await form.selectOption({ label: t.baseline });
      await page.getByText(t.baselineHint).waitFor();
      await page.reload();
      await page.locator('[data-testid="price-chart"][data-ready="true"][data-type="baseline"]').waitFor();
      assert.equal(await form.inputValue(), 'baseline');
      await form.selectOption('candles');
    });

    test('an indicator in its own pane is added', async () => {
      await page.getByRole('button', { name: t.rsi }).click();
      await page.locator('[data-testid="price-chart"][data-indicators="rsi"]').waitFor();
      assert.equal(await page.getByRole('button', { name: t.rsi }).getAttribute('aria-pressed'), 'true');
    });

    test('a demo contract is confirmed with its rules, enters and settles', async () => {
      // On a phone the panel is a bar with the buy buttons: open it to set the amount.
      const toggle = page.getByRole('button', { name: t.panelToggle });
      if ((await toggle.getAttribute('aria-expanded')) === 'false') await toggle.click();
      await page.getByLabel(t.amount).fill('10');
      await page.getByRole('radio', { name: new RegExp(`^${escape(t.shortDuration)}`) }).click();
      await page.getByRole('button', { name: t.buyUp, exact: true }).click();
      const dialog = page.getByRole('dialog', { name: t.confirmTitle });
      await dialog.getByText(t.ruleEntry).waitFor();
      await dialog.getByRole('button', { name: t.confirmOrder }).click();
      const card = page.locator('[data-testid^="contract-"]').first();
      await card.waitFor();
      await page.locator('[data-testid^="contract-"][data-status="open"]').first().waitFor({ timeout: 10_000 });
      await page.locator('[data-testid^="contract-"][data-status="settled"], [data-testid^="contract-"][data-status="void"]').first().waitFor({ timeout: 20_000 });
      const text = await card.locator('[role="status"]').innerText();
      assert.ok(t.settledTexts.some((s) => text.startsWith(s)), `settled text: ${text}`);
    });

    test('the contract is in the records with its entry and exit ticks', async () => {
      await page.getByRole('link', { name: t.navContract }).first().click();
      await page.waitForURL(/\/contract-record$/);
      // Nothing is open any more, so the records open on the settled list by themselves.
      await page.getByRole('tab', { name: t.settledTab, selected: true }).waitFor();
      await page.locator('.record-row').first().click();
      const details = page.getByTestId('contract-details');
      await details.waitFor();
      const text = await details.innerText();
      assert.match(text, new RegExp(`${escape(t.entryTick)}\\s*#\\d+`));
      assert.match(text, new RegExp(`${escape(t.exitTick)}\\s*#\\d+`));
      // The public settlement proof names the same entry tick.
      const href = await page.getByRole('link', { name: t.proof }).getAttribute('href');
      const proof = (await (await fetch(`${server.origin}${href}`)).json()).data;
      const entryIndex = Number(/#(\d+)/.exec(text.split(t.entryTick)[1])[1]);
      assert.equal(proof.contract.entry?.index ?? proof.firstAfterAcceptance?.index, entryIndex);
      assert.ok(proof.rule.code);
    });

    test('logout ends the session and goes to /login, without an expiry message', async () => {
      await page.keyboard.press('Escape'); // the contract details
      await page.getByRole('button', { name: t.userMenu }).click();
      await page.getByRole('menuitem', { name: t.logout }).click();
      await page.waitForURL(/\/login$/);
      assert.equal(await page.evaluate(() => localStorage.getItem('token')), null);
      assert.equal(await page.getByText(t.expired).count(), 0);
    });

    test('no errors in the browser console or the server log', () => {
      assert.deepEqual(page.problems, []);
      assert.deepEqual(server.errors(), []);
    });
  });
}
