// An invitation in a real Chromium: a user's invitation link (shown with its code and a QR
// code) opens registration with the code filled in; the new user registers, and then
// appears in the inviter's generation 1.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { PHONE, launch, openPage, signInPage } from '../lib/browser.mjs';
import { Server } from '../lib/server.mjs';

describe('invitations', () => {
  const server = new Server();
  let browser;
  let page;
  let link;

  before(async () => {
    await server.start();
    const login = await server.signUp('inviter');
    browser = await launch();
    page = await openPage(browser, { viewport: PHONE });
    await signInPage(page, login);
  });

  after(async () => {
    await browser?.close();
    await server.stop();
  });

  test('the account centre leads to the invitation link, code and QR code', async () => {
    await page.goto(`${server.origin}/account`);
    await page.getByRole('link', { name: 'My Invitations' }).click();
    await page.waitForURL(/\/account\/invitations$/);
    const code = (await page.getByTestId('invite-code').innerText()).trim();
    assert.match(code, /^[A-HJ-NP-Z2-9]{8}$/);
    link = (await page.getByTestId('invite-link').innerText()).trim();
    assert.equal(link, `${server.origin}/login/register?code=${code}`);
    await page.getByRole('img', { name: 'QR code of your invitation link' }).waitFor();
    assert.equal(await page.getByTestId('generation-1').locator('td').first().innerText(), '0');
  });

  test('the link registers a new user, who appears in generation 1', async () => {
    const guest = await openPage(browser, { viewport: PHONE });
    await guest.goto(link);
    const code = new URL(link).searchParams.get('code');
    assert.equal(await guest.getByLabel('Invitation code (optional)').inputValue(), code);
    await guest.getByLabel('Username', { exact: true }).fill('invitee');
    await guest.getByLabel('E-mail', { exact: true }).fill('invitee@example.com');
    await guest.getByLabel('Password', { exact: true }).fill('secret1');
    await guest.getByLabel('Confirm password', { exact: true }).fill('secret1');
    await guest.getByLabel('I agree to the terms and conditions').check();
    await guest.locator('form').getByRole('button', { name: 'Register', exact: true }).click();
    await guest.getByText('Registration successful, please log in').waitFor();
    assert.deepEqual(guest.problems, []);
    await guest.context().close();

    await page.reload();
    await page.getByTestId('generation-1').locator('td').first().getByText('1', { exact: true }).waitFor();
    assert.deepEqual(await page.getByTestId('generation-1').locator('td').allInnerTexts(), ['1', '0', '1'], 'not certified until the e-mail is verified');
  });

  test('no errors in the browser console or the server log', () => {
    assert.deepEqual(page.problems, []);
    assert.deepEqual(server.errors(), []);
  });
});
