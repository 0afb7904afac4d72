// Security in a real Chromium: ending another session signs that browser out; two-factor
// authentication is turned on with a code computed here by a TOTP library (otpauth) from the
// secret the page shows, and is then required at sign-in and at withdrawal. The server takes
// each 30-second step's code once, so every code is of a later step (lib/totp.mjs): the third
// one waits for the clock, up to 30 s.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { DESKTOP, PHONE, launch, openPage } from '../lib/browser.mjs';
import { Server } from '../lib/server.mjs';
import { totpCodes } from '../lib/totp.mjs';


describe('security: sessions and two-factor authentication', () => {
  const server = new Server();
  let browser;
  let page;
  let secret;
  /** The next authenticator code, of a later step than the last (set once 2FA has a secret). */
  let totp;

  /** Signs in through the login form, giving the authenticator code when asked. */
  async function signIn(target, code) {
    await target.goto(`${server.origin}/login`);
    await target.getByLabel('Username', { exact: true }).fill('sam_secure');
    await target.getByLabel('Password', { exact: true }).fill('secret1');
    await target.locator('form').getByRole('button', { name: 'Login', exact: true }).click();
    if (code) {
      await target.getByLabel('Authenticator code', { exact: true }).fill(await code());
      await target.locator('form').getByRole('button', { name: 'Login', exact: true }).click();
    }
    await target.waitForURL(/\/stocks$/);
  }

  /** The server's refusals this journey provokes on purpose show in the console as failed loads. */
  const unexpected = (problems) => problems.filter((p) => !p.includes('the server responded with a status of 400'));

  before(async () => {
    await server.start();
    await server.api('POST', '/login/register', { body: { username: 'sam_secure', email: 'sam@example.com', password: 'secret1' } });
    browser = await launch();
    page = await openPage(browser, { viewport: DESKTOP });
    await signIn(page);
  });

  after(async () => {
    await browser?.close();
    await server.stop();
  });

  test('ending another session signs that browser out', async () => {
    const other = await openPage(browser, { viewport: PHONE });
    await signIn(other);
    await page.goto(`${server.origin}/account`);
    await page.getByRole('link', { name: 'Security' }).click();
    await page.waitForURL(/\/account\/security$/);
    const rows = page.locator('.session-row', { hasText: 'This device' });
    await rows.first().waitFor();
    const end = page.getByRole('button', { name: /^End the session on / });
    assert.equal(await end.count(), 1, 'one other session, and this one cannot be ended');
    await end.click();
    await other.waitForURL(/\/login$/, { timeout: 10_000 });
    assert.equal(await other.evaluate(() => localStorage.getItem('token')), null);
    await end.waitFor({ state: 'detached' });
    await page.getByRole('region', { name: 'Security events' }).getByText('No security events').waitFor();
    assert.deepEqual(other.problems, []);
    await other.context().close();
  });

  test('two-factor authentication turns on with a code from the authenticator', async () => {
    await page.getByRole('button', { name: 'Enable' }).click();
    await page.getByRole('img', { name: 'QR code for your authenticator app' }).waitFor();
    secret = (await page.getByTestId('twofa-secret').innerText()).trim();
    assert.match(secret, /^[A-Z2-7]{16,}$/);
    totp = totpCodes(secret);
    await page.getByLabel('Authenticator code', { exact: true }).fill(await totp());
    await page.getByRole('button', { name: 'Confirm and enable' }).click();
    await page.getByTestId('twofa-state').getByText('On', { exact: true }).waitFor();
  });

  test('then the code is asked for at sign-in', async () => {
    const fresh = await openPage(browser, { viewport: PHONE });
    await signIn(fresh, totp);
    assert.deepEqual(unexpected(fresh.problems), []);
    assert.equal(fresh.problems.length, 1, 'the one TOTP_REQUIRED answer');
    // The sign-in left this browser its proof for the account's later password sign-ins.
    const devices = JSON.parse(await fresh.evaluate(() => localStorage.getItem('deviceTokens')));
    assert.deepEqual(devices.map((d) => d.username), ['sam_secure']);
    await fresh.context().close();
  });

  test('and at withdrawal: refused without it, accepted with it', async () => {
    // Real money first: a deposit with a receipt, approved by an admin.
    const token = await page.evaluate(() => localStorage.getItem('token'));
    await server.fund(token, '300');
    await assert.rejects(
      server.api('POST', '/wallet/withdrawals', { token, body: { method: 'bank', amount: '50', accountName: 'Sam', accountNumber: '1', bankName: 'B' } }),
      /TOTP_REQUIRED/,
    );

    await page.goto(`${server.origin}/account`);
    await page.getByRole('main').getByRole('button', { name: 'Real', exact: true }).click();
    await page.getByTestId('available-balance').getByText('300.00').waitFor();
    await page.getByRole('button', { name: 'Withdraw', exact: true }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('tab', { name: 'Bank card' }).click();
    await dialog.getByLabel('Cardholder name', { exact: true }).fill('Sam');
    await dialog.getByLabel('Account number', { exact: true }).fill('123456');
    await dialog.getByLabel('Bank name', { exact: true }).fill('Example Bank');
    await dialog.getByLabel('Amount', { exact: true }).fill('50');
    await dialog.getByRole('button', { name: 'Submit withdrawal' }).click();
    await dialog.getByText('Enter the 6-digit code from your authenticator app').waitFor();
    await dialog.getByLabel('Authenticator code', { exact: true }).fill('000000');
    await dialog.getByRole('button', { name: 'Submit withdrawal' }).click();
    await dialog.getByText('The authenticator code is wrong').waitFor();
    await dialog.getByLabel('Authenticator code', { exact: true }).fill(await totp());
    await dialog.getByRole('button', { name: 'Submit withdrawal' }).click();
    await dialog.getByText(/Withdrawal order #\d+ submitted\./).waitFor();
  });

  test('no errors in the browser console or the server log', () => {
    assert.deepEqual(unexpected(page.problems), []);
    assert.equal(page.problems.length, 1, 'the one wrong authenticator code');
    assert.deepEqual(server.errors(), []);
  });
});
