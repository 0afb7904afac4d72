// Wallet sign-in through a provider injected into the page, as MetaMask injects one: the
// page asks for the account and a personal_sign of the server's one-time message; the
// signature is made here with a real secp256k1 key (ethers). When the wallet's account
// changes, the 5-second check signs the user out.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { Wallet, getBytes } from 'ethers';

import { PHONE, launch, openPage } from '../lib/browser.mjs';
import { Server } from '../lib/server.mjs';

/** window.ethereum as MetaMask shapes it, forwarding every request to the test. */
function injectProvider() {
  window.ethereum = {
    isMetaMask: true,
    request: ({ method, params }) => window.__walletRequest(method, params ?? []),
    on() {},
    removeListener() {},
  };
}

describe('wallet sign-in', () => {
  const server = new Server();
  const wallets = [Wallet.createRandom(), Wallet.createRandom()];
  let current = wallets[0];
  const requests = [];
  let browser;
  let page;

  before(async () => {
    await server.start();
    browser = await launch();
    page = await openPage(browser, { viewport: PHONE });
    await page.exposeFunction('__walletRequest', async (method, params) => {
      requests.push(method);
      switch (method) {
        case 'eth_requestAccounts':
        case 'eth_accounts':
          return [current.address];
        case 'personal_sign': {
          const [message, address] = params;
          assert.equal(address.toLowerCase(), current.address.toLowerCase());
          return current.signMessage(getBytes(message));
        }
        default:
          throw Object.assign(new Error(`unsupported ${method}`), { code: 4200 });
      }
    });
    await page.addInitScript(injectProvider);
  });

  after(async () => {
    await browser?.close();
    await server.stop();
  });

  test('MetaMask signs the one-time message and the wallet user is signed in', async () => {
    await page.goto(`${server.origin}/login`);
    await page.getByRole('tab', { name: 'Wallet' }).click();
    await page.getByRole('button', { name: 'Connect wallet' }).click();
    await page.getByText('Please select a blockchain').waitFor();
    await page.getByLabel('MetaMask').check();
    await page.getByRole('button', { name: 'Connect wallet' }).click();
    await page.waitForURL(/\/stocks$/);
    assert.deepEqual(requests.slice(0, 2), ['eth_requestAccounts', 'personal_sign']);
    const user = await page.evaluate(() => JSON.parse(localStorage.getItem('user')));
    assert.match(user.username, /^wallet_eth_[0-9a-f]+$/);
    assert.ok(current.address.toLowerCase().includes(user.username.slice('wallet_eth_'.length)));
  });

  test('a wallet user has no logout in the avatar menu', async () => {
    await page.getByRole('button', { name: 'Account menu' }).click();
    await page.getByRole('menuitem', { name: 'Profile' }).waitFor();
    assert.equal(await page.getByRole('menuitem', { name: 'Logout' }).count(), 0);
    await page.keyboard.press('Escape');
  });

  test('the same wallet signs in to the same account again', async () => {
    const first = await page.evaluate(() => JSON.parse(localStorage.getItem('user')).uid);
    const context = await browser.newContext();
    const other = await context.newPage();
    await other.exposeFunction('__walletRequest', async (method, params) =>
      method === 'personal_sign' ? current.signMessage(getBytes(params[0])) : [current.address],
    );
    await other.addInitScript(injectProvider);
    await other.goto(`${server.origin}/login`);
    await other.getByRole('tab', { name: 'Wallet' }).click();
    await other.getByLabel('MetaMask').check();
    await other.getByRole('button', { name: 'Connect wallet' }).click();
    await other.waitForURL(/\/stocks$/);
    assert.equal(await other.evaluate(() => JSON.parse(localStorage.getItem('user')).uid), first);
    await context.close();
  });

  test('switching the wallet to another account signs the user out within 5 s', async () => {
    current = wallets[1];
    // The message is a toast that lasts 4 s: look for it while waiting for the redirect.
    await Promise.all([
      page.waitForURL(/\/login$/, { timeout: 10_000 }),
      page.getByText('Your wallet was disconnected or changed, so you have been signed out').waitFor({ timeout: 10_000 }),
    ]);
    assert.equal(await page.evaluate(() => localStorage.getItem('token')), null);
  });

  test('no errors in the browser console or the server log', () => {
    assert.deepEqual(page.problems, []);
    assert.deepEqual(server.errors(), []);
  });
});
