// The web app measured in Chromium against a real server (BENCHMARKS.md, "Web app"):
//  1. initial JavaScript of /login and /trade/BTCUSDT: the script files the browser loaded
//     before the screen was ready, gzipped (and the bytes actually sent, brotli);
//  2. navigation to a chart full of history (the app's `chart-ready` mark), cold and warm;
//  3. tick-to-screen latency at 4 ticks/s: from the tick's sequencing on the server to the
//     frame that draws it in the trade header, against the websocket's own delivery to a
//     bare page in the same browser (the baseline).
// Usage: node bench/web-bench.mjs [rounds=3] [seconds=60]   (server: TRADING_SERVER_BIN)
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';

import { DESKTOP, launch, openPage } from '../lib/browser.mjs';
import { Server } from '../lib/server.mjs';

const ROUNDS = Number(process.argv[2] ?? 3);
const SECONDS = Number(process.argv[3] ?? 60);
const DIST = resolve(import.meta.dirname, '../../../web/dist');

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const percentile = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
};

async function initialScripts(browser, url, ready) {
  const page = await openPage(browser, { viewport: DESKTOP });
  const scripts = new Map();
  page.on('response', async (response) => {
    const path = new URL(response.url()).pathname;
    if (!path.endsWith('.js')) return;
    const sizes = await response.request().sizes().catch(() => null);
    scripts.set(path, sizes?.responseBodySize ?? 0);
  });
  await page.goto(url);
  await page.locator(ready).first().waitFor();
  const files = [...scripts.keys()];
  const gzip = files.reduce((sum, f) => sum + gzipSync(readFileSync(join(DIST, f)), { level: 9 }).length, 0);
  const sent = [...scripts.values()].reduce((a, b) => a + b, 0);
  await page.context().close();
  return { files: files.length, gzipKiB: gzip / 1024, sentKiB: sent / 1024 };
}

async function chartReady(browser, server, warm) {
  const context = await browser.newContext({ viewport: DESKTOP });
  const page = await context.newPage();
  if (warm) {
    await page.goto(`${server.origin}/trade/BTCUSDT`);
    await page.locator('[data-testid="price-chart"][data-ready="true"]').waitFor();
    await page.goto(`${server.origin}/stocks`);
  }
  await page.goto(`${server.origin}/trade/BTCUSDT`);
  await page.locator('[data-testid="price-chart"][data-ready="true"]').waitFor();
  const ms = await page.evaluate(() => performance.getEntriesByName('chart-ready').at(-1)?.startTime ?? NaN);
  const candles = Number(await page.getByTestId('price-chart').getAttribute('data-candles'));
  await context.close();
  return { ms, candles };
}

async function tickLatency(browser, server) {
  // The app: the trade header's price, stamped with its tick's sequencer time.
  const app = await openPage(browser, { viewport: DESKTOP });
  await app.goto(`${server.origin}/trade/BTCUSDT`);
  await app.locator('[data-testid="price-chart"][data-ready="true"]').waitFor();
  await app.evaluate(() => {
    window.__latencies = [];
    const target = document.querySelector('[data-testid="last-price"]');
    new MutationObserver(() => {
      const sent = Number(target.dataset.tickTime);
      requestAnimationFrame(() => window.__latencies.push(Date.now() - sent));
    }).observe(target, { attributes: true, attributeFilter: ['data-tick-time'] });
  });
  // The baseline: a bare page with its own websocket, taking the same ticks.
  const bare = await openPage(browser, { viewport: DESKTOP });
  await bare.goto(`${server.origin}/api/health`);
  await bare.evaluate((url) => {
    window.__latencies = [];
    const socket = new WebSocket(url);
    socket.onopen = () => socket.send(JSON.stringify({ op: 'subscribe', channel: 'ticks', symbol: 'BTCUSDT' }));
    socket.onmessage = (event) => {
      const frame = JSON.parse(event.data);
      if (frame.type === 'tick') window.__latencies.push(Date.now() - frame.data.time);
    };
  }, `${server.origin.replace('http', 'ws')}/ws`);
  await app.waitForTimeout(SECONDS * 1000);
  const appSamples = (await app.evaluate(() => window.__latencies)).slice(4);
  const bareSamples = (await bare.evaluate(() => window.__latencies)).slice(4);
  await app.context().close();
  await bare.context().close();
  return {
    app: { n: appSamples.length, p50: percentile(appSamples, 50), p99: percentile(appSamples, 99) },
    socket: { n: bareSamples.length, p50: percentile(bareSamples, 50), p99: percentile(bareSamples, 99) },
  };
}

const server = new Server();
await server.start();
const browser = await launch();
try {
  const login = [];
  const trade = [];
  const cold = [];
  const warm = [];
  const ticks = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    login.push(await initialScripts(browser, `${server.origin}/login`, 'form button[type=submit]'));
    trade.push(await initialScripts(browser, `${server.origin}/trade/BTCUSDT`, '[data-testid="price-chart"][data-ready="true"]'));
    cold.push(await chartReady(browser, server, false));
    warm.push(await chartReady(browser, server, true));
    ticks.push(await tickLatency(browser, server));
    console.error(`round ${round + 1}/${ROUNDS} done`);
  }
  const report = {
    loginInitialJs: { gzipKiB: median(login.map((r) => r.gzipKiB)).toFixed(1), sentBrotliKiB: median(login.map((r) => r.sentKiB)).toFixed(1), files: login[0].files },
    tradeInitialJs: { gzipKiB: median(trade.map((r) => r.gzipKiB)).toFixed(1), sentBrotliKiB: median(trade.map((r) => r.sentKiB)).toFixed(1), files: trade[0].files },
    chartReadyColdMs: { median: median(cold.map((r) => r.ms)).toFixed(0), runs: cold.map((r) => r.ms.toFixed(0)), candles: cold[0].candles },
    chartReadyWarmMs: { median: median(warm.map((r) => r.ms)).toFixed(0), runs: warm.map((r) => r.ms.toFixed(0)) },
    tickToScreenMs: {
      p50: median(ticks.map((r) => r.app.p50)),
      p99: median(ticks.map((r) => r.app.p99)),
      samplesPerRound: ticks.map((r) => r.app.n),
      baselineSocketP50: median(ticks.map((r) => r.socket.p50)),
      baselineSocketP99: median(ticks.map((r) => r.socket.p99)),
    },
  };
  console.log(JSON.stringify(report, null, 2));
} finally {
  await browser.close();
  await server.stop();
}
