// Copy trading in a real Chromium against a real server: a leader (English, desktop) shares
// their trades; a follower (Arabic, phone) finds them among the top traders, opens their
// profile and starts copying with their own settings; the leader's order on the trade page is
// copied for the follower in the same command, live on the follower's trade page and marked
// with its leader; the leader removes the follower while their app is closed, and the
// notification centre tells them when they come back.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';

import { DESKTOP, PHONE, launch, openPage, signInPage } from '../lib/browser.mjs';
import { Server } from '../lib/server.mjs';

const ROOT = resolve(import.meta.dirname, '../../..');

function catalogue(language) {
  return JSON.parse(readFileSync(join(ROOT, `locales/${language}.json`), 'utf8')).web;
}

function escape(text) {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function fill(text, values) {
  return text.replace(/\{\{(\w+)\}\}/g, (_, key) => String(values[key]));
}

/** A name as others see it: its first and last characters. */
function masked(name) {
  return `${name[0]}***${name[name.length - 1]}`;
}

describe('copy trading: a follower copies a leader live', () => {
  const server = new Server();
  const en = catalogue('en-US');
  const ar = catalogue('ar-AR');
  const suffix = Date.now().toString(36);
  const names = { leader: `lena${suffix}`, follower: `finn${suffix}` };
  let browser;
  let lead;
  let follow;
  let leader;
  let follower;

  before(async () => {
    await server.start();
    leader = await server.signUp(names.leader);
    follower = await server.signUp(names.follower);
    browser = await launch();
    lead = await openPage(browser, { viewport: DESKTOP, language: 'en-US' });
    follow = await openPage(browser, { viewport: PHONE, language: 'ar-AR' });
    await signInPage(lead, leader);
    await signInPage(follow, follower);
  });

  after(async () => {
    await browser?.close();
    await server.stop();
    assert.deepEqual(server.errors(), [], 'no error in the server log');
  });

  test('the leader shares; the follower finds them and starts copying from their profile', async () => {
    await lead.goto(`${server.origin}/copy`);
    const share = lead.getByRole('switch', { name: en.copyTrading.share });
    await share.click();
    await lead.getByText(en.copyTrading.sharingOn).first().waitFor();
    assert.equal(await share.getAttribute('aria-checked'), 'true');

    await follow.goto(`${server.origin}/copy`);
    const name = masked(names.leader);
    await follow.getByRole('link', { name: fill(ar.copyTrading.viewProfile, { name }) }).click();
    await follow.getByRole('button', { name: ar.copyTrading.copyThis }).click();
    const form = follow.getByRole('dialog', { name: fill(ar.copyTrading.form.title, { name }) });
    await form.getByText(ar.header.demo, { exact: true }).click();
    await form.getByLabel(ar.copyTrading.form.percent).fill('50');
    await form.getByLabel(ar.copyTrading.form.minStake).fill('1');
    await form.getByLabel(ar.copyTrading.form.maxStake).fill('100');
    await form.getByLabel(ar.copyTrading.form.stopBelow).fill('0');
    await form.getByRole('button', { name: ar.copyTrading.form.submit }).click();
    await follow.getByText(fill(ar.copyTrading.form.started, { name })).first().waitFor();
    const mine = await server.api('GET', '/copy', { token: follower.token });
    assert.equal(mine.following.length, 1);
    assert.deepEqual(mine.following[0].settings, { account: 'demo', percent: 50, minStake: '1.00', maxStake: '100.00', stopBelow: '0.00' });

    // The leader sees the new follower.
    await lead.reload();
    await lead.getByRole('button', { name: fill(en.copyTrading.removeLabel, { name: masked(names.follower) }) }).waitFor();
  });

  test("the leader's order is copied for the follower at once, marked with its leader", async () => {
    await follow.goto(`${server.origin}/trade/BTCUSDT`);
    await follow.locator('[data-testid="price-chart"][data-ready="true"]').waitFor();

    await lead.goto(`${server.origin}/trade/BTCUSDT`);
    await lead.locator('[data-testid="price-chart"][data-ready="true"]').waitFor();
    const toggle = lead.getByRole('button', { name: en.trade.panel.toggle });
    if ((await toggle.getAttribute('aria-expanded')) === 'false') await toggle.click();
    await lead.getByLabel(en.trade.panel.amount).fill('10');
    await lead.getByRole('button', { name: en.trade.panel.buyUp, exact: true }).click();
    const confirm = lead.getByRole('dialog', { name: en.trade.confirm.title });
    await confirm.getByRole('button', { name: en.trade.confirm.submit }).click();
    await lead.locator('[data-testid^="contract-"]').first().waitFor({ timeout: 10_000 });

    // Live on the follower's page, without a reload: the copy's card names its leader.
    const mark = fill(ar.trade.live.copiedFrom, { uid: leader.user.uid });
    const card = follow.locator('[data-testid^="contract-"]', { hasText: mark }).first();
    await card.waitFor({ timeout: 10_000 });
    const copies = await server.api('GET', '/trade/contracts?copied=true', { token: follower.token });
    assert.equal(copies.total, 1);
    assert.equal(copies.items[0].copiedFrom, leader.user.uid);
    assert.equal(copies.items[0].stake, '5.00');
    const own = await server.api('GET', '/trade/contracts', { token: leader.token });
    assert.equal(copies.items[0].acceptedIndex, own.items[0].acceptedIndex, 'placed in the same command');
  });

  test('the leader removes the follower while they are away; they are told when they come back', async () => {
    // The follower's app is closed (its storage stays): no websocket to hear it on.
    const context = follow.context();
    const problems = follow.problems;
    await follow.close();
    await lead.goto(`${server.origin}/copy`);
    await lead.getByRole('button', { name: fill(en.copyTrading.removeLabel, { name: masked(names.follower) }) }).click();
    const ask = lead.getByRole('dialog', { name: fill(en.copyTrading.confirmRemoveTitle, { name: masked(names.follower) }) });
    await ask.getByRole('button', { name: en.copyTrading.remove, exact: true }).click();
    await lead.getByText(en.copyTrading.followersNone).waitFor();

    follow = await context.newPage();
    follow.problems = problems;
    follow.on('console', (message) => message.type() === 'error' && problems.push(`console: ${message.text()}`));
    follow.on('pageerror', (error) => problems.push(`page: ${error.message}`));
    await follow.goto(`${server.origin}/copy`);
    const unread = new RegExp(`^${escape(ar.notifications.bellUnread.split('{{')[0])}`);
    await follow.getByRole('button', { name: unread }).first().click();
    await follow.getByText(fill(ar.copyTrading.notify.endedRemoved, { leader: leader.user.uid })).first().waitFor();
    assert.deepEqual((await server.api('GET', '/copy', { token: follower.token })).following, []);
    assert.deepEqual(lead.problems, []);
    assert.deepEqual(follow.problems, []);
  });
});
