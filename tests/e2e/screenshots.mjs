// Screenshots of every screen at 390x844 and 1440x900, in English and Arabic, against a
// fresh server: `node screenshots.mjs` writes artifacts/screens/<language>-<width>/*.png.
// A tool to look at what we build, not a test.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

import * as OTPAuth from 'otpauth';

import { DESKTOP, PHONE, launch, openPage } from './lib/browser.mjs';
import { ADMIN_PASSWORD, Server } from './lib/server.mjs';

const OUT = join(import.meta.dirname, 'artifacts/screens');
const languages = process.argv[2] ? process.argv[2].split(',') : ['en-US', 'ar-AR'];

const server = new Server();
await server.start();
await server.addRule(5);
const username = `shots${Date.now().toString(36)}`;
await server.api('POST', '/login/register', { body: { username, email: `${username}@example.com`, password: 'secret1' } });
const login = await server.api('POST', '/login/login', { body: { username, password: 'secret1' } });
// Real money in the wallet: a deposit approved, one withdrawal pending, one paid out.
const { token: admin } = await server.api('POST', '/admin/login', { body: { username: 'admin', password: ADMIN_PASSWORD } });
await server.api('PUT', '/admin/system/deposit-accounts', {
  token: admin,
  body: {
    accounts: [
      { method: 'bank_transfer', name: 'Trading Ltd', number: 'DE89370400440532013000', bank: 'Example Bank' },
      { method: 'usdt_trc20', name: 'Platform TRC20', number: 'TE2H9hWjzYdwzDFRJfx9BFhr4MmjH1CHaz', bank: '' },
    ],
  },
});
await server.fund(login.token, '1250');
await server.api('POST', '/wallet/addresses', { token: login.token, body: { label: 'Main', chain: 'tron', address: 'TE2H9hWjzYdwzDFRJfx9BFhr4MmjH1CHaz', isDefault: true } });
for (const amount of ['100', '40']) await server.api('POST', '/wallet/withdrawals', { token: login.token, body: { method: 'wallet', addressPosition: 0, amount } });
const withdrawals = await server.api('GET', '/admin/withdraw-orders?status=pending', { token: admin });
await server.api('POST', `/admin/withdraw-orders/${withdrawals.items.at(-1).id}/approve`, { token: admin, body: {} });
// A settled contract for the records, and one running for the trade screen.
await server.api('POST', '/trade/orders', { token: login.token, body: { symbol: 'BTCUSDT', direction: 'up', amount: '25', duration: 5, account: 'demo' } });
await new Promise((r) => setTimeout(r, 9_000));
await server.api('POST', '/trade/orders', { token: login.token, body: { symbol: 'BTCUSDT', direction: 'down', amount: '40', duration: 300, account: 'demo' } });
// A price alert waiting well above the market.
const btc = await server.api('GET', '/markets/BTCUSDT');
await server.api('POST', '/user/price-alerts', { token: login.token, body: { symbol: 'BTCUSDT', price: String(Math.round(Number(btc.price) * 1.1)) } });

// The back-office's other admins (one with two-factor sign-in on) and notices, one withdrawn.
for (const [name, role] of [['cash_desk', 'finance'], ['help_desk', 'support'], ['market_ops', 'operations']]) {
  await server.api('POST', '/admin/admins', { token: admin, body: { username: name, password: 'admin-pass', role } });
}
const { token: ops } = await server.api('POST', '/admin/login', { body: { username: 'market_ops', password: 'admin-pass' } });
const { secret } = await server.api('POST', '/admin/2fa/setup', { token: ops, body: {} });
const code = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 }).generate();
await server.api('POST', '/admin/2fa/enable', { token: ops, body: { secret, code } });
await server.api('POST', '/admin/notices', { token: admin, body: { title: 'Maintenance on Sunday', body: 'Trading pauses from 02:00 to 02:10 UTC.', lang: '' } });
await server.api('POST', '/admin/notices', { token: admin, body: { title: 'صيانة يوم الأحد', body: 'يتوقف التداول من 02:00 إلى 02:10 بالتوقيت العالمي.', lang: 'ar-AR' } });
const sent = await server.api('GET', '/admin/notices', { token: admin });
await server.api('DELETE', `/admin/notices/${sent.items.at(-1).id}`, { token: admin });

const browser = await launch();
const problems = [];

async function shoot(page, dir, name) {
  await page.waitForTimeout(600);
  await page.screenshot({ path: join(dir, `${name}.png`) });
}

for (const language of languages) {
  for (const viewport of [PHONE, DESKTOP]) {
    const dir = join(OUT, `${language}-${viewport.width}`);
    mkdirSync(dir, { recursive: true });

    const guest = await openPage(browser, { viewport, language });
    await guest.goto(`${server.origin}/stocks`);
    await guest.getByTestId('price-BTCUSDT').waitFor();
    await shoot(guest, dir, '01-markets-guest');
    await guest.goto(`${server.origin}/login`);
    await shoot(guest, dir, '02-login');
    await guest.locator('form button[type=submit]').click();
    await shoot(guest, dir, '03-login-errors');
    await guest.getByRole('tab').nth(3).click(); // e-mail mode
    await shoot(guest, dir, '04-login-email');
    await guest.getByRole('tab').nth(4).click(); // wallet mode
    await shoot(guest, dir, '05-login-wallet');
    await guest.goto(`${server.origin}/login/register?code=ABCD2345`);
    await guest.locator('form button[type=submit]').click();
    await shoot(guest, dir, '06-register-errors');
    await guest.goto(`${server.origin}/login`);
    await guest.locator('.auth-extras .link-button').click();
    await shoot(guest, dir, '07-forgot-password');
    await guest.goto(`${server.origin}/trade/ETHUSDT`);
    await guest.locator('[data-testid="price-chart"][data-ready="true"]').waitFor();
    await shoot(guest, dir, '08-trade-guest');
    await guest.goto(`${server.origin}/no-such-page`);
    await shoot(guest, dir, '09-not-found');
    problems.push(...guest.problems.map((p) => `${language} ${viewport.width} guest: ${p}`));
    await guest.context().close();

    const page = await openPage(browser, { viewport, language });
    await page.addInitScript(
      ({ token, user }) => {
        localStorage.setItem('token', token);
        localStorage.setItem('user', JSON.stringify(user));
      },
      { token: login.token, user: login.user },
    );
    await page.goto(`${server.origin}/stocks`);
    await page.getByTestId('price-BTCUSDT').waitFor();
    // The notice written in Arabic is shown once, as a modal, to users of the app in Arabic.
    if (language === 'ar-AR') {
      await page.locator('.notice-body').waitFor();
      await shoot(page, dir, '10b-notice');
      await page.locator('[role="dialog"] .btn-primary').click();
    }
    await shoot(page, dir, '10-markets-user');
    await page.goto(`${server.origin}/trade/BTCUSDT`);
    await page.locator('[data-testid="price-chart"][data-ready="true"]').waitFor();
    await shoot(page, dir, '11-trade-user');
    for (const key of ['ma', 'boll', 'rsi', 'macd']) {
      await page.locator('.chart-indicators button').nth(['ma', 'ema', 'boll', 'rsi', 'macd'].indexOf(key)).click();
    }
    await page.waitForTimeout(800);
    await shoot(page, dir, '12-trade-indicators');
    const toggle = page.locator('.order-panel-header button');
    if ((await toggle.getAttribute('aria-expanded')) === 'false') await toggle.click();
    await page.locator('.order-panel input').fill('10');
    await page.locator('.buy-buttons .btn-up').click();
    await shoot(page, dir, '13-trade-confirm');
    await page.keyboard.press('Escape');
    await page.goto(`${server.origin}/contract-record`);
    await page.locator('.record-row').first().waitFor();
    await shoot(page, dir, '14-records-open');
    await page.getByRole('tab').nth(1).click();
    await page.locator('.record-row').first().click();
    await page.getByTestId('contract-details').waitFor();
    await shoot(page, dir, '15-record-details');
    await page.keyboard.press('Escape');
    await page.goto(`${server.origin}/account`);
    await page.getByTestId('available-balance').waitFor();
    await shoot(page, dir, '16-account');
    await page.locator('main .account-balance .chip').first().click(); // the real account
    await page.locator('.wallet-action').first().waitFor();
    await shoot(page, dir, '16b-account-real');
    await page.locator('.wallet-action').nth(0).click();
    await page.locator('.receiving dl').waitFor();
    await shoot(page, dir, '19-deposit');
    await page.locator('.dialog form button[type=submit]').click();
    await shoot(page, dir, '20-deposit-errors');
    await page.keyboard.press('Escape');
    await page.locator('.wallet-action').nth(1).click();
    await page.locator('.address-row').first().waitFor();
    await page.locator('.dialog input[inputmode=decimal]').fill('120.5');
    await shoot(page, dir, '21-withdraw');
    await page.keyboard.press('Escape');
    await page.locator('.wallet-action').nth(2).click();
    await page.locator('.dialog form').waitFor();
    await shoot(page, dir, '22-transfer');
    await page.keyboard.press('Escape');
    await page.locator('.wallet-action').nth(3).click();
    await page.getByRole('tab').nth(1).click();
    await page.locator('.order-row').first().waitFor();
    await shoot(page, dir, '23-bill-withdrawals');
    await page.keyboard.press('Escape');
    await page.goto(`${server.origin}/account/wallet`);
    await page.locator('.bill-row').first().waitFor();
    await shoot(page, dir, '24-wallet');
    await page.goto(`${server.origin}/account/history`);
    await page.locator('.bill-row').first().waitFor();
    await shoot(page, dir, '25-history');
    await page.goto(`${server.origin}/account/invitations`);
    await page.getByTestId('invite-code').waitFor();
    await shoot(page, dir, '26-invitations');
    await page.goto(`${server.origin}/account/profile`);
    await page.locator('.profile-avatar').waitFor();
    await shoot(page, dir, '27-profile');
    await page.goto(`${server.origin}/account/notifications`);
    await page.getByRole('switch').first().waitFor();
    await shoot(page, dir, '30-notification-settings');
    await page.goto(`${server.origin}/account/responsible-trading`);
    await page.locator('.responsible-now').waitFor();
    await shoot(page, dir, '31-responsible-trading');
    await page.goto(`${server.origin}/account/price-alerts`);
    await page.locator('.alert-row').first().waitFor();
    await shoot(page, dir, '32-price-alerts');
    await page.goto(`${server.origin}/trade/BTCUSDT`);
    await page.locator('.alert-button').click();
    await page.locator('.alert-row').first().waitFor();
    await shoot(page, dir, '33-trade-price-alert');
    await page.keyboard.press('Escape');
    await page.goto(`${server.origin}/account/security`);
    await page.locator('.session-row').first().waitFor();
    await shoot(page, dir, '28-security');
    await page.locator('.security .card').nth(1).locator('button').first().click();
    await page.locator('.twofa-setup .invite-qr svg').waitFor();
    await shoot(page, dir, '29-security-2fa-setup');
    await page.locator('.header-tools .icon-button[aria-haspopup="dialog"]').click();
    await shoot(page, dir, '17-notifications');
    await page.keyboard.press('Escape');
    await page.locator('.avatar-menu > button').click();
    await shoot(page, dir, '18-avatar-menu');
    problems.push(...page.problems.map((p) => `${language} ${viewport.width} user: ${p}`));
    await page.context().close();

    // The back-office: its sign-in, and the dashboard (a pending withdrawal on the badge).
    const office = await openPage(browser, { viewport, language });
    await office.goto(`${server.origin}/admin/login`);
    await office.locator('.auth-card form').waitFor();
    await shoot(office, dir, '40-admin-login');
    await office.locator('input[name="username"]').fill('admin');
    await office.locator('input[name="password"]').fill(ADMIN_PASSWORD);
    await office.locator('button[type="submit"]').click();
    await office.locator('.admin-figures').first().waitFor();
    await office.locator('.admin-badge').first().waitFor();
    await shoot(office, dir, '41-admin-dashboard');
    if (viewport === PHONE) {
      await office.locator('.admin-nav-toggle').click();
      await shoot(office, dir, '42-admin-menu');
    }
    await office.goto(`${server.origin}/admin/withdraw-orders`);
    await office.locator('.admin-order').first().waitFor();
    await shoot(office, dir, '43-admin-withdraw-orders');
    await office.locator('.admin-order-actions .btn-secondary').first().click();
    await office.locator('.admin-remark').waitFor();
    await shoot(office, dir, '44-admin-reject-dialog');
    await office.keyboard.press('Escape');
    await office.goto(`${server.origin}/admin/users`);
    await office.locator('.admin-user-row').first().waitFor();
    await shoot(office, dir, '45-admin-users');
    await office.locator('.admin-user-row').first().click();
    await office.locator('.admin-user-form').first().waitFor();
    await shoot(office, dir, '46-admin-user');
    await office.keyboard.press('Escape');
    await office.goto(`${server.origin}/admin/rules`);
    await office.locator('.admin-table tbody tr').first().waitFor();
    await shoot(office, dir, '47-admin-rules');
    await office.locator('.admin-row-actions button').first().click();
    await office.locator('input[name="payoutRate"]').fill('0.9');
    await office.locator('.admin-preview').waitFor();
    await shoot(office, dir, '48-admin-rule-preview');
    await office.keyboard.press('Escape');
    for (const [path, ready, name] of [
      ['trades', '.admin-table tbody tr', '49-admin-trades'],
      ['config', '.admin-config', '50-admin-config'],
      ['audit', '.admin-table tbody tr', '51-admin-audit'],
      ['notices', '.admin-orders li', '52-admin-notices'],
      ['products', '.admin-table tbody tr', '53-admin-products'],
    ]) {
      await office.goto(`${server.origin}/admin/${path}`);
      await office.locator(ready).first().waitFor();
      await shoot(office, dir, name);
    }
    await office.goto(`${server.origin}/admin/admins`);
    await office.locator('.admin-card').nth(3).waitFor();
    await shoot(office, dir, '54-admin-admins');
    await office.locator('.admin-page .btn-primary').first().click();
    await office.locator('[role="dialog"] input[type="radio"]').first().waitFor();
    await shoot(office, dir, '55-admin-create-admin');
    await office.keyboard.press('Escape');
    await office.goto(`${server.origin}/admin/account`);
    await office.locator('#password').waitFor();
    await shoot(office, dir, '56-admin-account');
    await office.locator('.admin-header .admin-name').click();
    await shoot(office, dir, '57-admin-name-menu');
    await office.keyboard.press('Escape');
    await office.goto(`${server.origin}/admin/teams`);
    await office.locator('.admin-page').waitFor();
    await shoot(office, dir, '58-admin-teams');
    problems.push(...office.problems.map((p) => `${language} ${viewport.width} admin: ${p}`));
    await office.context().close();

    // An admin with two-factor sign-in on is asked for the authenticator code.
    const secure = await openPage(browser, { viewport, language });
    await secure.goto(`${server.origin}/admin/login`);
    await secure.locator('input[name="username"]').fill('market_ops');
    await secure.locator('input[name="password"]').fill('admin-pass');
    await secure.locator('button[type="submit"]').click();
    await secure.locator('input[autocomplete="one-time-code"]').waitFor();
    await shoot(secure, dir, '59-admin-login-code');
    problems.push(...secure.problems.filter((p) => !/status of 400/.test(p)).map((p) => `${language} ${viewport.width} admin 2fa: ${p}`));
    await secure.context().close();
  }
}

await browser.close();
await server.stop();
console.log(`screenshots in ${OUT}`);
console.log(problems.length ? `browser problems:\n${problems.join('\n')}` : 'no browser console errors');
const errors = server.errors();
console.log(errors.length ? `server errors:\n${errors.join('\n')}` : 'no server log errors');
