// The back-office's roles and actions in a real Chromium against a real server, with traders'
// browsers watching: the first admin (signed in with the password the server was started
// with) adds a finance admin, who is kept to the pages its role allows; a game-rule edit
// changes the payout of the next contract but not of the running one; a user found by a part
// of the name is frozen and their trade is refused; a notice broadcast appears in a trader's
// open app; an admin changes its password and the old one stops working; every action is in
// the audit log.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';

import { DESKTOP, launch, openPage, signInPage } from '../lib/browser.mjs';
import { ADMIN_PASSWORD, Server } from '../lib/server.mjs';

const web = JSON.parse(readFileSync(resolve(import.meta.dirname, '../../../locales/en-US.json'), 'utf8')).web;
const A = web.admin;

function escape(text) {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A catalogue text with its placeholders filled. */
function fill(text, values) {
  return text.replace(/{{(\w+)}}/g, (_, key) => String(values[key]));
}

describe('back-office: roles, rules, freezing, notices, passwords, audit', () => {
  const server = new Server();
  let browser;
  let adminPage;

  /** Signs `page` in at /admin/login. */
  async function adminSignIn(page, username, password) {
    await page.goto(`${server.origin}/admin/login`);
    await page.getByLabel(web.auth.username).fill(username);
    await page.getByLabel(web.auth.password).fill(password);
    await page.getByRole('button', { name: web.auth.loginButton }).click();
    await page.waitForURL('**/admin/dashboard');
  }

  const sidebar = (page) => page.getByRole('navigation', { name: A.nav.label });

  async function openFromSidebar(page, label, path) {
    await sidebar(page).getByRole('link', { name: label }).click();
    await page.waitForURL(`**${path}`);
  }

  before(async () => {
    await server.start();
    browser = await launch();
    adminPage = await openPage(browser, { viewport: DESKTOP });
    await adminSignIn(adminPage, 'admin', ADMIN_PASSWORD);
  });

  after(async () => {
    await browser?.close();
    await server.stop();
    assert.deepEqual(server.errors(), [], 'no error in the server log');
  });

  test('a finance admin added by the first admin sees only the pages its role allows', async () => {
    await openFromSidebar(adminPage, A.nav.admins, '/admin/admins');
    await adminPage.getByRole('button', { name: A.admins.add }).click();
    const dialog = adminPage.getByRole('dialog', { name: A.admins.addTitle });
    await dialog.getByLabel(A.admins.fields.username).fill('cash_e2e');
    await dialog.getByLabel(A.admins.fields.password).fill('finance-pass');
    await dialog.getByRole('radio', { name: new RegExp(`^${escape(A.roles.finance)}`) }).check();
    await dialog.getByRole('button', { name: A.admins.create }).click();
    await adminPage.getByText(fill(A.admins.created, { name: 'cash_e2e' })).waitFor();

    const finance = await openPage(browser, { viewport: DESKTOP });
    await adminSignIn(finance, 'cash_e2e', 'finance-pass');
    await sidebar(finance).getByRole('link', { name: A.nav.dashboard }).waitFor();
    const items = await sidebar(finance).getByRole('link').allInnerTexts();
    for (const allowed of [A.nav.dashboard, A.nav.users, A.nav.trades, A.nav.recharge, A.nav.withdraw, A.nav.audit]) {
      assert.ok(items.includes(allowed), `${allowed} in ${items}`);
    }
    for (const hidden of [A.nav.rules, A.nav.admins, A.nav.config, A.nav.products, A.nav.notices]) {
      assert.ok(!items.includes(hidden), `${hidden} hidden from finance: ${items}`);
    }
    // Typed in by hand, the page is not there; the server refuses its data too.
    await finance.goto(`${server.origin}/admin/rules`);
    await finance.getByRole('heading', { name: web.app.notFound }).waitFor();
    assert.equal(await finance.getByText(A.rules.about).count(), 0);
    const token = await finance.evaluate(() => localStorage.getItem('admin_token'));
    const refused = await fetch(`${server.origin}/api/admin/rules`, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(refused.status, 403);
    assert.deepEqual(finance.problems, []);
    await finance.context().close();
  });

  test('a rule edit changes the payout of the next contract, not of the running one', async () => {
    const trader = await server.signUp('rules_e2e');
    const order = { symbol: 'BTCUSDT', direction: 'up', amount: '10', duration: 60, account: 'demo' };
    const running = await server.api('POST', '/trade/orders', { token: trader.token, body: order });

    await openFromSidebar(adminPage, A.nav.rules, '/admin/rules');
    const minute = web.time.minutes.replace('{{count}}', '1');
    await adminPage.getByRole('button', { name: fill(A.rules.editOne, { duration: minute }) }).click();
    const dialog = adminPage.getByRole('dialog', { name: fill(A.rules.editTitle, { duration: minute }) });
    await dialog.getByLabel(A.rules.fields.payoutRate).fill('0.7');
    // The preview says what a winning 100 USDT stake is credited before and after.
    await dialog.getByText(A.rules.example).first().waitFor();
    assert.match(await dialog.innerText(), /170\.00/);
    await dialog.getByRole('button', { name: A.rules.save }).click();
    await adminPage.getByText(A.rules.saved).waitFor();

    const next = await server.api('POST', '/trade/orders', { token: trader.token, body: order });
    const rate = async (id) => (await server.api('GET', `/trade/contracts/${id}`, { token: trader.token })).payoutRate;
    assert.equal(await rate(running.contractId), '0.85', 'the running contract keeps its terms');
    assert.equal(await rate(next.contractId), '0.7', 'the next one takes the new rule');
  });

  test('a user found by a part of the name is frozen, and their order is refused in the app', async () => {
    const trader = await server.signUp('frozzy_e2e');
    const app = await openPage(browser, { viewport: DESKTOP });
    await signInPage(app, trader);
    await app.goto(`${server.origin}/trade/BTCUSDT`);
    await app.getByRole('button', { name: web.trade.panel.buyUp, exact: true }).waitFor();

    await openFromSidebar(adminPage, A.nav.users, '/admin/users');
    await adminPage.getByRole('searchbox', { name: A.users.search }).fill('OZZY');
    await adminPage.getByRole('button', { name: A.users.searchButton }).click();
    await adminPage.getByRole('button', { name: fill(A.users.open, { name: 'frozzy_e2e', uid: trader.user.uid }) }).click();
    const user = adminPage.getByRole('dialog', { name: fill(A.users.title, { uid: trader.user.uid }) });
    const freeze = user.getByRole('form', { name: A.users.freeze });
    await freeze.getByLabel(A.users.reason).fill('Card chargeback under review');
    await freeze.getByRole('button', { name: A.users.freeze }).click();
    await adminPage.getByText(fill(A.users.frozenDone, { uid: trader.user.uid })).waitFor();
    await adminPage.keyboard.press('Escape');

    await app.getByLabel(web.trade.panel.amount).fill('10');
    await app.getByRole('button', { name: web.trade.panel.buyUp, exact: true }).click();
    await app.getByRole('dialog', { name: web.trade.confirm.title }).getByRole('button', { name: web.trade.confirm.submit }).click();
    await app.getByText('This account is frozen, please contact customer service').first().waitFor();
    const contracts = await server.api('GET', '/trade/contracts?account=demo', { token: trader.token });
    assert.equal(contracts.total, 0, 'nothing was placed');
    const unexpected = app.problems.filter((p) => !/status of 403/.test(p));
    assert.deepEqual(unexpected, []);
    await app.context().close();
  });

  test("a notice broadcast appears in a trader's open app", async () => {
    const trader = await server.signUp('reader_e2e');
    const app = await openPage(browser, { viewport: DESKTOP });
    await signInPage(app, trader);
    await app.goto(`${server.origin}/stocks`);
    await app.getByRole('main').first().waitFor();

    await openFromSidebar(adminPage, A.nav.notices, '/admin/notices');
    const form = adminPage.getByRole('form', { name: A.notices.new });
    await form.getByLabel(A.notices.title, { exact: true }).fill('Maintenance tonight');
    await form.getByLabel(A.notices.body).fill('Trading pauses at 02:00 UTC for ten minutes.');
    await form.getByRole('button', { name: A.notices.send }).click();
    await adminPage.getByRole('dialog', { name: A.notices.confirmTitle }).getByRole('button', { name: A.notices.sendNow }).click();
    await adminPage.getByText(A.notices.sent).waitFor();

    const shown = app.getByRole('dialog', { name: 'Maintenance tonight' });
    await shown.getByText('Trading pauses at 02:00 UTC for ten minutes.').waitFor();
    assert.deepEqual(app.problems, []);
    await app.context().close();
  });

  test('an admin changes its password and the old one stops working', async () => {
    await server.api('POST', '/admin/admins', {
      token: await adminPage.evaluate(() => localStorage.getItem('admin_token')),
      body: { username: 'ops_e2e', password: 'first-pass', role: 'operations' },
    });
    const ops = await openPage(browser, { viewport: DESKTOP });
    await adminSignIn(ops, 'ops_e2e', 'first-pass');
    await ops.getByRole('button', { name: fill(A.menu.open, { name: 'ops_e2e' }) }).click();
    await ops.getByRole('menuitem', { name: A.menu.password }).click();
    await ops.waitForURL('**/admin/account*');
    const form = ops.getByRole('region', { name: A.account.password.title });
    await form.getByLabel(A.account.password.current).fill('first-pass');
    await form.getByLabel(A.account.password.new, { exact: true }).fill('second-pass');
    await form.getByLabel(A.account.password.confirm).fill('second-pass');
    await form.getByRole('button', { name: A.account.password.submit }).click();
    await ops.getByText(A.account.password.changed).first().waitFor();

    const login = (password) =>
      fetch(`${server.origin}/api/admin/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'ops_e2e', password }),
      }).then((r) => r.json());
    assert.equal((await login('first-pass')).code, 'ADMIN_LOGIN_FAILED');
    assert.equal((await login('second-pass')).success, true);
    assert.deepEqual(ops.problems, []);
    await ops.context().close();
  });

  test('every action is in the audit log', async () => {
    await openFromSidebar(adminPage, A.nav.audit, '/admin/audit');
    const log = adminPage.getByRole('main').getByRole('table');
    await log.getByRole('cell', { name: A.audit.actions.create_admin, exact: true }).first().waitFor();
    const text = await log.innerText();
    for (const action of ['create_admin', 'set_rule', 'set_user_frozen', 'broadcast_notice', 'change_own_password']) {
      assert.ok(text.includes(A.audit.actions[action]), `${action} in the audit log`);
    }
    assert.deepEqual(adminPage.problems, []);
  });
});
