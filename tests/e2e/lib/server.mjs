// A real trading-server for a journey: its own temporary data directory, a free port on
// loopback, a known admin password, rate limits off (journeys sign in many times from one
// address). It can be stopped (SIGTERM, a clean shutdown) and started again on the same
// directory and port, as an operator would restart it.
import { spawn } from 'node:child_process';
import { createWriteStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../../..');
export const ADMIN_PASSWORD = 'e2e-admin-pass-1';
/** A 1×1 PNG: the server checks an upload's type by its content. */
export const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082', 'hex');
const START_TIMEOUT_MS = 120_000;

function freePort() {
  return new Promise((done, fail) => {
    const probe = createServer();
    probe.once('error', fail);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => done(port));
    });
  });
}

export class Server {
  /** `args`: more command-line options (`--allow-real-money-on-simulated-prices`). */
  constructor({ args = [] } = {}) {
    this.extraArgs = args;
    this.binary = process.env.TRADING_SERVER_BIN ?? join(ROOT, 'target/debug/trading-server');
    this.dataDir = mkdtempSync(join(tmpdir(), 'trading-e2e-'));
    this.logPath = join(this.dataDir, 'server.log');
    // Each server's data is about 100 MB and a run starts dozens: removed when the test file
    // passes, kept (with its log, named in the failure) when it fails.
    process.once('exit', (code) => {
      if (code === 0) rmSync(this.dataDir, { recursive: true, force: true });
    });
    this.log = createWriteStream(this.logPath, { flags: 'a' });
    this.child = null;
    this.port = 0;
  }

  get origin() {
    return `http://127.0.0.1:${this.port}`;
  }

  async start() {
    this.port ||= await freePort();
    const args = ['--data-dir', this.dataDir, '--listen', `127.0.0.1:${this.port}`, '--admin-password', ADMIN_PASSWORD, '--no-rate-limits', ...this.extraArgs];
    const child = spawn(this.binary, args, { env: { ...process.env, RUST_LOG: process.env.RUST_LOG ?? 'info' }, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.pipe(this.log, { end: false });
    child.stderr.pipe(this.log, { end: false });
    this.child = child;
    const exited = new Promise((_, fail) => child.once('exit', (code) => fail(new Error(`trading-server exited with ${code}; log: ${this.logPath}`))));
    await Promise.race([this.waitHealthy(), exited]);
  }

  async waitHealthy() {
    const deadline = Date.now() + START_TIMEOUT_MS;
    for (;;) {
      try {
        const answer = await fetch(`${this.origin}/api/health`);
        if (answer.ok) return;
      } catch {
        // Not listening yet.
      }
      if (Date.now() > deadline) throw new Error(`trading-server did not start; log: ${this.logPath}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  async stop() {
    const child = this.child;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((done) => child.once('exit', done));
    child.kill('SIGTERM');
    await exited;
    this.child = null;
  }

  /** Log lines at ERROR level: a defect even when the journey passes. */
  errors() {
    return readFileSync(this.logPath, 'utf8')
      .split('\n')
      .filter((line) => /\bERROR\b/.test(line));
  }

  async api(method, path, { body, token } = {}) {
    const answer = await fetch(`${this.origin}/api${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const payload = await answer.json();
    if (!payload.success) throw new Error(`${method} ${path}: ${answer.status} ${payload.code} ${payload.message}`);
    return payload.data;
  }

  /** A new user signed up with an e-mail and password `secret1`, then signed in: the login answer. */
  async signUp(username) {
    await this.api('POST', '/login/register', { body: { username, email: `${username}@example.com`, password: 'secret1' } });
    return this.api('POST', '/login/login', { body: { username, password: 'secret1' } });
  }

  /** Real money for a user, as a person gets it: a receipt uploaded, a deposit asked for, an admin's approval. */
  async fund(token, amount) {
    const form = new FormData();
    form.append('file', new Blob([PNG], { type: 'image/png' }), 'receipt.png');
    const uploaded = await fetch(`${this.origin}/api/upload`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
    const receipt = (await uploaded.json()).data.name;
    const order = await this.api('POST', '/wallet/deposits', {
      token,
      body: { amount, method: 'bank_transfer', accountName: 'E2E', accountNumber: '123456', bankName: 'E2E Bank', receipt },
    });
    const { token: admin } = await this.api('POST', '/admin/login', { body: { username: 'admin', password: ADMIN_PASSWORD } });
    await this.api('POST', `/admin/recharge-orders/${order.orderId}/approve`, { token: admin, body: {} });
  }

  /** Adds a short contract duration, so a journey sees a contract settle in seconds. */
  async addRule(duration, payoutRate = '0.85') {
    const { token } = await this.api('POST', '/admin/login', { body: { username: 'admin', password: ADMIN_PASSWORD } });
    await this.api('PUT', '/admin/rules', {
      token,
      body: { duration, payoutRate, minAmount: '1', maxAmount: '5000', feeRate: '0', enabled: true },
    });
  }
}
