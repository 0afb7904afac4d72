// Drawing on the price chart in a real Chromium against a real server, with a mouse on a
// desktop in English and with a finger on a phone in Arabic: place a horizontal line with a
// tap, a trend line with a drag, a zone with two taps; select the line again by touching it;
// find them again after a reload; move the zone; select it and delete it.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';

import { DESKTOP, PHONE, launch, signInPage } from '../lib/browser.mjs';
import { Server } from '../lib/server.mjs';

function catalogue(language) {
  return JSON.parse(readFileSync(resolve(import.meta.dirname, `../../../locales/${language}.json`), 'utf8')).web;
}

for (const [language, viewport, touch] of [
  ['en-US', DESKTOP, false],
  ['ar-AR', PHONE, true],
]) {
  describe(`chart drawings in ${language} at ${viewport.width}x${viewport.height} (${touch ? 'touch' : 'mouse'})`, () => {
    const server = new Server();
    const draw = catalogue(language).trade.draw;
    let browser;
    let page;
    let cdp;
    let box;

    /**
     * A point of the chart's price pane, as fractions of the chart's box. On a phone the order
     * bar covers the chart's lower third, so every point is above it.
     */
    const at = (fx, fy) => ({ x: box.x + box.width * fx, y: box.y + box.height * fy });

    async function tap(fx, fy) {
      const p = at(fx, fy);
      if (touch) await page.touchscreen.tap(p.x, p.y);
      else await page.mouse.click(p.x, p.y);
    }

    async function drag(from, to) {
      const [a, b] = [at(...from), at(...to)];
      const steps = 8;
      if (!touch) {
        await page.mouse.move(a.x, a.y);
        await page.mouse.down();
        await page.mouse.move(b.x, b.y, { steps });
        await page.mouse.up();
        return;
      }
      await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: [{ x: a.x, y: a.y }] });
      for (let i = 1; i <= steps; i++) {
        const x = a.x + ((b.x - a.x) * i) / steps;
        const y = a.y + ((b.y - a.y) * i) / steps;
        await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: [{ x, y }] });
      }
      await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
    }

    const drawings = (n) => page.locator(`[data-testid="price-chart"][data-drawings="${n}"]`).waitFor();
    const kept = () => page.evaluate(() => JSON.parse(localStorage.getItem('chartDrawings') ?? '{}').BTCUSDT ?? []);
    const tool = (name) => page.getByRole('toolbar', { name: draw.tools }).getByRole('button', { name, exact: true });
    /** Waits until the delete button is enabled (a selection) or disabled (none). */
    const deletable = (enabled) => page.locator(`[role="toolbar"] button[aria-label="${draw.delete}"]:${enabled ? 'enabled' : 'disabled'}`).waitFor();

    before(async () => {
      await server.start();
      const login = await server.signUp(`draw${language.slice(0, 2)}${Date.now().toString(36)}`);
      browser = await launch();
      const context = await browser.newContext({ viewport, hasTouch: touch, isMobile: touch });
      await context.addInitScript((lang) => window.localStorage.setItem('language', lang), language);
      page = await context.newPage();
      page.problems = [];
      page.on('console', (m) => m.type() === 'error' && page.problems.push(m.text()));
      page.on('pageerror', (e) => page.problems.push(e.message));
      await signInPage(page, login);
      cdp = await context.newCDPSession(page);
    });

    after(async () => {
      await browser?.close();
      await server.stop();
    });

    async function openChart() {
      await page.goto(`${server.origin}/trade/BTCUSDT`);
      const chart = page.locator('[data-testid="price-chart"][data-ready="true"]');
      await chart.waitFor();
      await chart.scrollIntoViewIfNeeded();
      box = await chart.boundingBox();
    }

    test('a tap places a horizontal line, a drag a trend line, two taps a zone', async () => {
      await openChart();
      await page.getByRole('button', { name: draw.tools, exact: true }).click();
      await page.getByText(draw.hintPick).waitFor();

      await tool(draw.kinds.hline).click();
      await page.getByText(draw.hintOne).waitFor();
      await tap(0.5, 0.3);
      await drawings(1);
      await page.getByText(draw.hintSelected).waitFor();
      await deletable(true); // the new line is selected
      // Touched again anywhere along it, it is selected again.
      await page.keyboard.press('Escape');
      await deletable(false);
      await tap(0.18, 0.3);
      await deletable(true);

      await tool(draw.kinds.trend).click();
      await page.getByText(draw.hintTwo).waitFor();
      await drag([0.25, 0.55], [0.5, 0.4]);
      await drawings(2);

      await tool(draw.kinds.zone).click();
      await tap(0.62, 0.45);
      await tap(0.78, 0.6);
      await drawings(3);

      const [line, trend, zone] = await kept();
      assert.deepEqual([line.kind, trend.kind, zone.kind], ['hline', 'trend', 'zone']);
      // The chart held still under the drag: the line ends where the pointer went, up and to the right.
      assert.ok(trend.points[1].time > trend.points[0].time && trend.points[1].price > trend.points[0].price, JSON.stringify(trend));
    });

    test('drawings are kept for the symbol after a reload, and the zone moves with a drag', async () => {
      await openChart();
      await drawings(3);
      await page.getByRole('button', { name: draw.tools, exact: true }).click();
      const before = (await kept())[2];
      await drag([0.7, 0.52], [0.7, 0.4]);
      await page.getByText(draw.hintSelected).waitFor();
      const moved = (await kept())[2];
      assert.equal(moved.id, before.id);
      assert.ok(moved.points[0].price > before.points[0].price, 'dragged up: a higher price');
      assert.ok(Math.abs(moved.points[0].time - before.points[0].time) < 2 * 60_000, 'straight up: about the same time');
    });

    test('a drawing is selected by a touch and deleted', async () => {
      // Nothing selected first (the moved zone was), so the delete below is of the touched one.
      // The zone is touched inside: it is tall enough to stay under the finger when new prices
      // rescale the chart, which a thin line is not.
      await page.keyboard.press('Escape');
      await deletable(false);
      await tap(0.7, 0.42);
      await deletable(true);
      await tool(draw.delete).click();
      await drawings(2);
      assert.deepEqual(
        (await kept()).map((d) => d.kind),
        ['hline', 'trend'],
      );
      await deletable(false);
      assert.deepEqual(page.problems, []);
      assert.deepEqual(server.errors(), []);
    });
  });
}
