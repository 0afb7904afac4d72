// The trader's money, in a real Chromium against a real server: a deposit with a receipt
// image, approved by an admin through the API, arrives live in the balance with a
// notification; a withdrawal rejected gives the money back; a withdrawal approved is
// processing, then completed when paid out; a transfer to another user names the recipient
// first, and is refused within 24 h of a password change.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';

import { DESKTOP, launch, openPage } from '../lib/browser.mjs';
import { ADMIN_PASSWORD, PNG, Server } from '../lib/server.mjs';

const ADDRESS = 'TE2H9hWjzYdwzDFRJfx9BFhr4MmjH1CHaz';

describe('money: deposit, withdrawals and a transfer', () => {
  const server = new Server();
  let browser;
  let page;
  let admin;
  let friend;

  const balanceFigure = () => page.getByTestId('available-balance').innerText();

  /** Opens the notification centre, waits for a title, closes it. */
  async function notified(title) {
    await page.locator('button[aria-haspopup="dialog"]').click();
    await dialog().getByRole('tab', { name: /^System/ }).click();
    await dialog().getByText(title).first().waitFor();
    await page.keyboard.press('Escape');
  }
  const dialog = () => page.getByRole('dialog');

  /** Decides the newest order of a kind through the admin API. */
  async function decide(kind, action, remark) {
    const list = await server.api('GET', `/admin/${kind}-orders?pageSize=1`, { token: admin });
    const id = list.items[0].id;
    await server.api('POST', `/admin/${kind}-orders/${id}/${action}`, { token: admin, body: remark ? { remark } : {} });
    return id;
  }

  before(async () => {
    await server.start();
    ({ token: admin } = await server.api('POST', '/admin/login', { body: { username: 'admin', password: ADMIN_PASSWORD } }));
    await server.api('PUT', '/admin/system/deposit-accounts', {
      token: admin,
      body: { accounts: [{ method: 'bank_transfer', name: 'Trading Ltd', number: 'DE89370400440532013000', bank: 'Example Bank' }] },
    });
    for (const name of ['kate_money', 'liam_money']) {
      await server.api('POST', '/login/register', { body: { username: name, email: `${name}@example.com`, password: 'secret1' } });
    }
    friend = (await server.api('POST', '/login/login', { body: { username: 'liam_money', password: 'secret1' } })).user;
    browser = await launch();
    page = await openPage(browser, { viewport: DESKTOP });
    await page.goto(`${server.origin}/login`);
    await page.getByLabel('Username', { exact: true }).fill('kate_money');
    await page.getByLabel('Password', { exact: true }).fill('secret1');
    await page.locator('form').getByRole('button', { name: 'Login', exact: true }).click();
    await page.waitForURL(/\/stocks$/);
  });

  after(async () => {
    await browser?.close();
    await server.stop();
  });

  test('a deposit with a receipt, approved by an admin, arrives live with a notification', async () => {
    await page.goto(`${server.origin}/account`);
    await page.getByRole('main').getByRole('button', { name: 'Real', exact: true }).click();
    assert.equal(await balanceFigure(), '0.00 USDT');
    await page.getByRole('button', { name: 'Deposit', exact: true }).click();
    await dialog().getByText('DE89370400440532013000').waitFor();
    await dialog().getByLabel('Amount', { exact: true }).fill('500');
    await dialog().getByLabel('Your account name', { exact: true }).fill('Kate');
    await dialog().getByLabel('Your account number', { exact: true }).fill('123456');
    await dialog().getByLabel('Your bank name', { exact: true }).fill('My Bank');
    await dialog().getByLabel('Payment receipt (image)').setInputFiles({ name: 'receipt.png', mimeType: 'image/png', buffer: PNG });
    await dialog().getByText('Uploaded').waitFor();
    await dialog().getByRole('button', { name: 'Submit deposit' }).click();
    await dialog().getByText(/Deposit order #\d+ submitted\./).waitFor();
    await dialog().getByRole('button', { name: 'Close' }).first().click();

    await decide('recharge', 'approve');
    await page.getByTestId('available-balance').getByText('500.00').waitFor();
    await notified('Deposit completed');
  });

  test('a withdrawal rejected by an admin unfreezes the money, and the bill says why', async () => {
    await page.getByRole('button', { name: 'Withdraw', exact: true }).click();
    await dialog().getByLabel('Network').selectOption('tron');
    await dialog().getByLabel('Wallet address', { exact: true }).fill(ADDRESS);
    await dialog().getByRole('button', { name: 'Save address' }).click();
    await dialog().getByRole('radio').first().waitFor();
    await dialog().getByLabel('Amount', { exact: true }).fill('50');
    assert.equal(await dialog().getByTestId('withdraw-fee').innerText(), '1.50 USDT');
    assert.equal(await dialog().getByTestId('withdraw-actual').innerText(), '48.50 USDT');
    await dialog().getByRole('button', { name: 'Submit withdrawal' }).click();
    await dialog().getByText(/Withdrawal order #\d+ submitted\./).waitFor();
    await dialog().getByRole('button', { name: 'Close' }).first().click();
    await page.getByTestId('available-balance').getByText('450.00').waitFor();

    await decide('withdraw', 'reject', 'Name does not match');
    await page.getByTestId('available-balance').getByText('500.00').waitFor();
    await page.getByRole('button', { name: 'Bill', exact: true }).click();
    await dialog().getByRole('tab', { name: 'Withdrawals' }).click();
    await dialog().getByText('Rejected').waitFor();
    await dialog().getByText('Name does not match').waitFor();
    await dialog().getByRole('button', { name: 'Close' }).first().click();
  });

  test('a withdrawal approved is processing, then completed when paid out', async () => {
    await page.getByRole('button', { name: 'Withdraw', exact: true }).click();
    await dialog().getByLabel('Amount', { exact: true }).fill('100');
    await dialog().getByRole('button', { name: 'Submit withdrawal' }).click();
    await dialog().getByText(/Withdrawal order #\d+ submitted\./).waitFor();
    await dialog().getByRole('button', { name: 'Close' }).first().click();
    const id = await decide('withdraw', 'approve');
    await notified('Withdrawal approved: being paid out');
    await page.getByRole('button', { name: 'Bill', exact: true }).click();
    await dialog().getByRole('tab', { name: 'Withdrawals' }).click();
    const row = dialog().getByTestId(`order-${id}`);
    await row.getByText('Processing').waitFor();
    await server.api('POST', `/admin/withdraw-orders/${id}/paid`, { token: admin, body: {} });
    await row.getByText('Completed', { exact: true }).waitFor();
    await dialog().getByRole('button', { name: 'Close' }).first().click();
    await page.getByTestId('available-balance').getByText('400.00').waitFor();

    await page.goto(`${server.origin}/account/wallet`);
    await page.getByTestId('wallet-available').getByText('400.00').waitFor();
    assert.equal(await page.getByTestId('wallet-frozen').innerText(), '0.00');
    await page.getByRole('link', { name: 'View all' }).click();
    await page.waitForURL(/\/account\/history$/);
    await page.getByLabel('Type').selectOption('withdraw');
    await page.getByTestId('history-count').getByText('1', { exact: true }).waitFor();
    // The export has the screen's filter: the one withdrawal, as a file to keep.
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export CSV' }).click()]);
    assert.equal(download.suggestedFilename(), 'transactions-real.csv');
    const lines = (await readFile(await download.path(), 'utf8')).trim().split('\n');
    assert.equal(lines[0], 'id,time,account,type,amount,balance_after,available_after,reference');
    assert.equal(lines.length, 2, lines.join('\n'));
    assert.match(lines[1], /,real,withdraw,-100\.00,400\.00,400\.00,\d+$/);
    // The balances frame the history: from nothing to the wallet's 400.00.
    await page.getByTestId('history-closing').getByText('400.00').waitFor();
    assert.equal(await page.getByTestId('history-opening').innerText(), '0.00');
    // The printable statement of the same account: the browser makes its PDF.
    await page.getByRole('link', { name: 'Statement', exact: true }).click();
    await page.waitForURL(/\/account\/statement\?account=real$/);
    await page.getByTestId('statement-closing').getByText('400.00').waitFor();
    assert.equal(await page.getByTestId('statement-opening').innerText(), '0.00');
    const pdf = await page.pdf({ format: 'A4' });
    assert.equal(pdf.subarray(0, 5).toString(), '%PDF-');
    // Or the server makes it, as a file in the trader's language (its text: the API tests).
    const [file] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download PDF' }).click()]);
    assert.match(file.suggestedFilename(), /^statement-real-\d{4}-\d{2}-\d{2}\.pdf$/);
    assert.equal((await readFile(await file.path())).subarray(0, 5).toString(), '%PDF-');
  });

  test('a transfer names the recipient first; within 24 h of a password change it is refused', async () => {
    await page.goto(`${server.origin}/account`);
    await page.getByRole('button', { name: 'Transfer', exact: true }).click();
    await dialog().getByLabel('Recipient UID', { exact: true }).fill(String(friend.uid));
    await dialog().getByLabel('Amount', { exact: true }).fill('25');
    await dialog().getByRole('button', { name: 'Next' }).click();
    await dialog().getByText(`Send 25.00 USDT to l***y (UID ${friend.uid})? A transfer cannot be undone.`).waitFor();
    await dialog().getByRole('button', { name: 'Send', exact: true }).click();
    await dialog().getByText(`25.00 USDT sent to l***y (UID ${friend.uid}).`).waitFor();
    await dialog().getByRole('button', { name: 'Close' }).first().click();
    await page.getByTestId('available-balance').getByText('375.00').waitFor();

    // The password changes from this browser's session (so this session stays signed in).
    const token = await page.evaluate(() => localStorage.getItem('token'));
    await server.api('POST', '/user/password', { token, body: { oldPassword: 'secret1', newPassword: 'secret22', confirmPassword: 'secret22' } });
    await page.getByRole('button', { name: 'Transfer', exact: true }).click();
    await dialog().getByText(/Transfers are not allowed within 24 hours after the login password is changed\. You can transfer again from/).waitFor();
    assert.equal(await dialog().getByRole('button', { name: 'Next' }).isDisabled(), true);
    await assert.rejects(server.api('POST', '/wallet/transfers', { token, body: { toUid: friend.uid, amount: '1' } }), /TRANSFER_BLOCKED/);
  });

  test('no errors in the browser console or the server log', () => {
    assert.deepEqual(page.problems, []);
    assert.deepEqual(server.errors(), []);
  });
});
