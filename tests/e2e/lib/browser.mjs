// Debian's Chromium driven by playwright-core (no browser download), with every console
// error and page error of the journey collected: an error there is a defect.
import { chromium } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const LAUNCH_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run', '--disable-dev-shm-usage'];

export const PHONE = { width: 390, height: 844 };
export const DESKTOP = { width: 1440, height: 900 };

export async function launch() {
  return chromium.launch({ executablePath: CHROMIUM, args: LAUNCH_ARGS });
}

/** Signs the page in as the app would after a login: the token and user under the spec's keys. */
export async function signInPage(page, login) {
  await page.addInitScript(
    ({ token, user }) => {
      localStorage.setItem('token', token);
      localStorage.setItem('user', JSON.stringify(user));
    },
    { token: login.token, user: login.user },
  );
}

/** A fresh context (its own storage) and page, optionally in a language. */
export async function openPage(browser, { viewport = DESKTOP, language } = {}) {
  const context = await browser.newContext({ viewport });
  if (language) await context.addInitScript((lang) => window.localStorage.setItem('language', lang), language);
  const page = await context.newPage();
  const problems = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page: ${error.message}`));
  page.problems = problems;
  return page;
}
