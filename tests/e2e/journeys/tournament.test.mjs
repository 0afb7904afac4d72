// A tournament in a real Chromium against a real server: an admin (back-office, English,
// desktop) writes a short tournament on BTCUSDT's 5-second contracts and publishes it; two
// players enter it from the lobby, one in English on a desktop, one in Arabic on a phone, each
// paying the fee from real money; the first trades the tournament balance from the trade page,
// the second's contract moves the first's standings live; the tournament ends by itself, the
// final table shows, and the winner's real balance has the prize; trading-verify re-derives
// the table and the prizes from the archived ticks.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';

import { DESKTOP, PHONE, launch, openPage, signInPage } from '../lib/browser.mjs';
import { ADMIN_PASSWORD, Server } from '../lib/server.mjs';

const ROOT = resolve(import.meta.dirname, '../../..');
const VERIFY = process.env.TRADING_VERIFY_BIN ?? join(ROOT, 'target/debug/trading-verify');
/** How long the tournament runs: long enough for both players to enter and trade. */
const LENGTH_MS = 45_000;

function catalogue(language) {
  return JSON.parse(readFileSync(join(ROOT, `locales/${language}.json`), 'utf8')).web;
}

function fill(text, values) {
  return text.replace(/\{\{(\w+)\}\}/g, (_, key) => String(values[key]));
}

/** A time as `<input type="datetime-local" step="1">` takes it, in the page's time zone (UTC here). */
function localInput(ms) {
  return new Date(ms).toISOString().slice(0, 19);
}

describe('a tournament from the back-office to the prize', () => {
  // Real fees and prizes on the simulated feed: the operator allows it, as for real orders.
  const server = new Server({ args: ['--allow-real-money-on-simulated-prices'] });
  const en = catalogue('en-US');
  const ar = catalogue('ar-AR');
  const suffix = Date.now().toString(36);
  const title = `Sprint ${suffix}`;
  let browser;
  let admin;
  let ann;
  let bob;
  let annPage;
  let bobPage;
  let id;

  before(async () => {
    await server.start();
    await server.addRule(5);
    ann = await server.signUp(`ann${suffix}`);
    bob = await server.signUp(`bob${suffix}`);
    await server.fund(ann.token, '100');
    await server.fund(bob.token, '100');
    const { token } = await server.api('POST', '/admin/login', { body: { username: 'admin', password: ADMIN_PASSWORD } });
    await server.api('POST', '/admin/house/fund', { token, body: { amount: '10000' } });
    browser = await launch();
    admin = await openPage(browser, { viewport: DESKTOP, language: 'en-US' });
    annPage = await openPage(browser, { viewport: DESKTOP, language: 'en-US' });
    bobPage = await openPage(browser, { viewport: PHONE, language: 'ar-AR' });
    await signInPage(annPage, ann);
    await signInPage(bobPage, bob);
  });

  after(async () => {
    await browser?.close();
    await server.stop();
    assert.deepEqual(server.errors(), [], 'no error in the server log');
  });

  test('an admin writes a draft and publishes it', async () => {
    await admin.goto(`${server.origin}/admin/login`);
    await admin.getByLabel('Username').fill('admin');
    await admin.getByLabel('Password').fill(ADMIN_PASSWORD);
    await admin.getByRole('button', { name: 'Login' }).click();
    await admin.waitForURL('**/admin/dashboard');
    await admin.getByRole('link', { name: en.admin.nav.tournaments }).click();
    await admin.getByRole('button', { name: en.admin.tournaments.new }).click();
    const form = admin.getByRole('dialog', { name: en.admin.tournaments.new });
    const field = (name) => form.getByLabel(en.admin.tournaments.fields[name], { exact: true });
    await field('title').fill(title);
    await field('symbols').fill('BTCUSDT');
    await field('durations').fill('5');
    // A prize split that does not add up is caught before anything is sent.
    await field('prizes').fill('70, 20');
    await form.getByRole('button', { name: en.admin.tournaments.saveDraft }).click();
    await form.getByText(en.admin.tournaments.errors.prizes).waitFor();
    await field('prizes').fill('70, 30');
    const now = Date.now();
    await field('start').fill(localInput(now - 1_000));
    await field('end').fill(localInput(now + LENGTH_MS));
    await field('entryFee').fill('10');
    await field('startBalance').fill('1000');
    await field('poolMin').fill('20');
    await form.getByRole('button', { name: en.admin.tournaments.saveDraft }).click();
    await admin.getByText(en.admin.tournaments.saved).first().waitFor();
    await admin.getByRole('button', { name: fill(en.admin.tournaments.publishOne, { title }) }).click();
    const ask = admin.getByRole('dialog', { name: fill(en.admin.tournaments.publishTitle, { title }) });
    await ask.getByRole('button', { name: en.admin.tournaments.publish, exact: true }).click();
    await admin.getByText(fill(en.admin.tournaments.publishDone, { title })).first().waitFor();
    const lobby = await server.api('GET', '/tournaments');
    assert.equal(lobby[0].rules.title, title);
    assert.equal(lobby[0].status, 'running');
    id = lobby[0].id;
    assert.deepEqual(admin.problems, []);
  });

  test('two players enter from the lobby, each paying the fee from real money', async () => {
    for (const [page, text] of [
      [annPage, en],
      [bobPage, ar],
    ]) {
      await page.goto(`${server.origin}/tournaments`);
      await page.getByRole('link', { name: fill(text.tournaments.open, { title }) }).click();
      await page.getByRole('heading', { name: title, level: 1 }).waitFor();
      // Amounts in Western digits in every language, as trading screens show them; in Arabic
      // the amount and its unit are isolated inside the sentence (FSI … PDI).
      const fee = fill(text.tournaments.usdt, { amount: '10.00' });
      const join = fill(text.tournaments.joinFor, { fee: text === ar ? `\u2068${fee}\u2069` : fee });
      await page.getByRole('button', { name: join }).click();
      const ask = page.getByRole('dialog', { name: fill(text.tournaments.confirmJoinTitle, { title }) });
      await ask.getByRole('button', { name: text.tournaments.join, exact: true }).click();
      await page.getByTestId('my-entry').waitFor();
    }
    for (const player of [ann, bob]) {
      const real = await server.api('GET', '/wallet/balance?account=real', { token: player.token });
      assert.equal(real.available, '90.00');
      const seat = await server.api('GET', '/wallet/balance?account=tournament', { token: player.token });
      assert.deepEqual([seat.total, seat.tournament], ['1000.00', id]);
    }
  });

  test("one trades the tournament balance from the chart; the other's contract moves the standings live", async () => {
    await annPage.getByRole('button', { name: en.tournaments.trade }).click();
    await annPage.locator('[data-testid="price-chart"][data-ready="true"]').waitFor();
    assert.equal(await annPage.getByRole('combobox', { name: en.header.accountSwitch }).inputValue(), 'tournament');
    const toggle = annPage.getByRole('button', { name: en.trade.panel.toggle });
    if ((await toggle.getAttribute('aria-expanded')) === 'false') await toggle.click();
    await annPage.getByLabel(en.trade.panel.amount).fill('400');
    await annPage.getByRole('button', { name: en.trade.panel.buyUp, exact: true }).click();
    const confirm = annPage.getByRole('dialog', { name: en.trade.confirm.title });
    await confirm.getByRole('button', { name: en.trade.confirm.submit }).click();
    await annPage.locator('[data-testid^="contract-"]').first().waitFor({ timeout: 10_000 });
    const played = await server.api('GET', `/tournaments/${id}/players/${ann.user.uid}/contracts`);
    assert.equal(played.items[0].account, 'tournament');
    assert.equal(played.items[0].stake, '400.00');

    // Bob's line on Ann's tournament page moves while she watches it, when his contract
    // settles: no reload.
    await annPage.goto(`${server.origin}/tournaments/${id}`);
    const bobLine = annPage.getByTestId('standings').getByRole('row', { name: new RegExp(`#${bob.user.uid}\\b`) });
    await bobLine.getByText('1,000.00').waitFor();
    const order = await server.api('POST', '/trade/orders', {
      token: bob.token,
      body: { symbol: 'BTCUSDT', direction: 'down', amount: '300', duration: 5, account: 'tournament' },
    });
    let settled;
    for (;;) {
      const rows = await server.api('GET', `/tournaments/${id}/players/${bob.user.uid}/contracts`);
      settled = rows.items.find((c) => c.id === order.contractId && c.settledAt);
      if (settled) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    // 700 lost, 1 255 won (85 % on 300), 1 000 on a tie or a void.
    const balance = (await server.api('GET', `/tournaments/${id}`)).standings.find((s) => s.uid === bob.user.uid).balance;
    assert.equal(balance, (1000 - 300 + Number(settled.credited)).toFixed(2));
    await bobLine.getByText(Number(balance).toLocaleString('en-US', { minimumFractionDigits: 2 })).waitFor({ timeout: 5_000 });
    assert.deepEqual(annPage.problems, []);
  });

  test('the tournament ends by itself; the final table shows and the winner has the prize', async () => {
    await annPage.getByRole('heading', { name: en.tournaments.finalTable }).waitFor({ timeout: LENGTH_MS + 30_000 });
    const { tournament, standings } = await server.api('GET', `/tournaments/${id}`);
    assert.equal(tournament.status, 'finished');
    // Fees 2 × 10 = 20: the guaranteed 20 is the pool, 70 % and 30 % of it.
    assert.deepEqual(tournament.prizes, ['14.00', '6.00']);
    const winner = standings[0].uid === ann.user.uid ? ann : bob;
    const real = await server.api('GET', '/wallet/balance?account=real', { token: winner.token });
    assert.equal(real.available, '104.00');
    const bills = await server.api('GET', '/wallet/bills', { token: winner.token });
    assert.ok(bills.items.some((b) => b.type === 'tournament_prize' && b.amount === '14.00'), JSON.stringify(bills.items));
    // The winner's own screen shows the prize in their real balance.
    const page = winner === ann ? annPage : bobPage;
    const text = winner === ann ? en : ar;
    await page.goto(`${server.origin}/account`);
    await page.getByTestId('available-balance').getByText('104.00').waitFor();
    await page.goto(`${server.origin}/tournaments/${id}`);
    await page.getByTestId('my-entry').getByText(fill(text.tournaments.placeOf, { place: 1, players: 2 })).waitFor();
    assert.deepEqual(annPage.problems, []);
    assert.deepEqual(bobPage.problems, []);
  });

  test('trading-verify re-derives the table and the prizes from the archived ticks', async () => {
    const { stdout } = await promisify(execFile)(VERIFY, ['--api', server.origin]);
    assert.match(stdout, /re-derived 1 finished tournament tables/);
    assert.match(stdout, /0 mismatches, 0 errors/);
  });
});
