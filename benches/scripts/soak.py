#!/usr/bin/env python3
"""A soak: the release server under steady mixed load for a while, its memory sampled.

    benches/scripts/soak.py [--minutes 10] [--orders 5000] [--tick-clients 2000] [--signins 16]

Runs, all at once, on this machine:
  - orders over websockets at a fixed rate (loadgen, open loop, 500 traders, 5 s contracts);
  - websocket clients subscribed to ticks (loadgen --mode ticks);
  - password sign-ins at a fixed rate over HTTP (8 accounts, paced);
  - the simulated market's own ticks on every product.
Every 10 s it records the server's resident memory (VmRSS), its open files, the commands the
engine applied and the log index the read model (history) has projected. At the end it stops
the load, waits for history to catch up, and checks the server's log for warnings and errors.

It prints a markdown table and a verdict and exits non-zero when memory grew (the last third
of the run's median RSS more than 10 % over the second third's), the log has an error or a
warning, sign-ins failed, or history did not catch up within 120 s. The defaults are half of
the measured sustained peaks in BENCHMARKS.md (10 k orders/s with fresh history, 33 sign-ins/s
on one hashing thread).
"""
import argparse
import json
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
BIN = os.path.join(ROOT, 'target', 'release')
ADMIN_PASSWORD = 'soak-password-1'
SAMPLE_SECONDS = 10
CATCH_UP_SECONDS = 120
# Commands the read model may trail by once the load has stopped: the simulated feed keeps
# ticking, so there is always a little in flight.
CAUGHT_UP_LAG = 2_000
COUNT_LOCK = threading.Lock()


def free_port():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


def call(base, path, body=None, token=None):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(base + path, data=data, method='POST' if data else 'GET')
    req.add_header('content-type', 'application/json')
    if token:
        req.add_header('authorization', 'Bearer ' + token)
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.load(r)


def metrics(port):
    with urllib.request.urlopen(f'http://127.0.0.1:{port}/metrics', timeout=10) as r:
        text = r.read().decode()
    out = {}
    for name in ('engine_commands', 'readmodel_index', 'ws_connections'):
        m = re.search(rf'^trading_{name}(?:_total)? (\d+)', text, re.M)
        out[name] = int(m.group(1)) if m else 0
    return out


def rss_kib(pid):
    with open(f'/proc/{pid}/status') as f:
        for line in f:
            if line.startswith('VmRSS:'):
                return int(line.split()[1])
    return 0


def open_files(pid):
    return len(os.listdir(f'/proc/{pid}/fd'))


def sign_ins(base, accounts, rate, stop, counts):
    """Paced sign-ins: one every 1/rate s in all, round-robin over the accounts."""
    interval = 1.0 / rate
    next_at = time.monotonic()
    i = 0
    while not stop.is_set():
        name = accounts[i % len(accounts)]
        i += 1
        try:
            answer = call(base, '/api/login/login', {"username": name, "password": "secret1"})
            outcome = 'ok' if answer.get('success') else 'failed'
        except Exception:  # noqa: BLE001 - counted, reported at the end
            outcome = 'failed'
        with COUNT_LOCK:
            counts[outcome] += 1
        next_at += interval
        delay = next_at - time.monotonic()
        if delay > 0:
            stop.wait(delay)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--minutes', type=float, default=10)
    parser.add_argument('--orders', type=int, default=5000, help='orders per second')
    parser.add_argument('--tick-clients', type=int, default=2000)
    parser.add_argument('--signins', type=float, default=16, help='sign-ins per second')
    parser.add_argument('--no-build', action='store_true')
    args = parser.parse_args()
    seconds = int(args.minutes * 60)

    if not args.no_build:
        subprocess.run(['cargo', 'build', '--release', '-q', '-p', 'gateway', '--bin', 'trading-server',
                        '-p', 'benches', '--bin', 'loadgen'], cwd=ROOT, check=True)
    work = tempfile.mkdtemp(prefix='soak-')
    port, metrics_port = free_port(), free_port()
    base = f'http://127.0.0.1:{port}'
    log_path = os.path.join(work, 'server.log')
    log = open(log_path, 'w')
    server = subprocess.Popen(
        [os.path.join(BIN, 'trading-server'), '--data-dir', os.path.join(work, 'data'),
         '--listen', f'127.0.0.1:{port}', '--metrics-listen', f'127.0.0.1:{metrics_port}',
         '--admin-password', ADMIN_PASSWORD, '--no-rate-limits', '--log-format', 'text',
         '--ws-messages-per-second', '100000', '--ws-connections-per-ip-max', '20000'],
        stdout=log, stderr=subprocess.STDOUT)
    loads = []
    stop = threading.Event()
    try:
        for _ in range(200):
            try:
                call(base, '/api/health')
                break
            except Exception:  # noqa: BLE001 - not up yet
                time.sleep(0.1)
        accounts = []
        for i in range(8):
            name = f'soak{i}'
            call(base, '/api/login/register', {"username": name, "email": f'{name}@example.com', "password": "secret1"})
            accounts.append(name)
        loadgen = os.path.join(BIN, 'loadgen')
        common = ['--server', f'127.0.0.1:{port}', '--seconds', str(seconds), '--warmup', '0']
        loads.append(subprocess.Popen(
            [loadgen, '--mode', 'orders', '--clients', '500', '--users', '500', '--rate', str(args.orders),
             '--admin-password', ADMIN_PASSWORD, '--threads', '1'] + common,
            stdout=open(os.path.join(work, 'orders.txt'), 'w'), stderr=subprocess.STDOUT))
        counts = {'ok': 0, 'failed': 0}
        # Several callers, so that one slow answer does not lower the rate.
        signers = [threading.Thread(target=sign_ins, args=(base, accounts[i::4], args.signins / 4, stop, counts),
                                    daemon=True) for i in range(4)]
        for signer in signers:
            signer.start()
        # The clock starts when the traders are registered and the orders flow.
        orders_out = os.path.join(work, 'orders.txt')
        while 'connected' not in open(orders_out).read():
            if loads[0].poll() is not None:
                raise SystemExit('loadgen (orders) stopped: ' + open(orders_out).read())
            time.sleep(0.5)
        loads.append(subprocess.Popen(
            [loadgen, '--mode', 'ticks', '--clients', str(args.tick_clients), '--threads', '1'] + common,
            stdout=open(os.path.join(work, 'ticks.txt'), 'w'), stderr=subprocess.STDOUT))

        samples = []
        started = time.monotonic()
        print('| t (s) | RSS (MiB) | open files | engine commands | history index | lag | ws connections | sign-ins |')
        print('|---|---|---|---|---|---|---|---|')
        while True:
            elapsed = time.monotonic() - started
            m = metrics(metrics_port)
            row = (round(elapsed), rss_kib(server.pid) / 1024, open_files(server.pid), m['engine_commands'],
                   m['readmodel_index'], m['engine_commands'] - m['readmodel_index'], m['ws_connections'], counts['ok'])
            samples.append(row)
            print('| %d | %.1f | %d | %d | %d | %d | %d | %d |' % row, flush=True)
            if elapsed >= seconds or loads[0].poll() is not None:
                break
            time.sleep(max(0.0, SAMPLE_SECONDS * len(samples) - (time.monotonic() - started)))
        stop.set()
        for signer in signers:
            signer.join()
        for p in loads:
            p.wait(timeout=120)
        waited = time.monotonic()
        while True:
            m = metrics(metrics_port)
            lag = m['engine_commands'] - m['readmodel_index']
            if lag <= CAUGHT_UP_LAG or time.monotonic() - waited > CATCH_UP_SECONDS:
                break
            time.sleep(1)
        caught_up_after = time.monotonic() - waited
    finally:
        stop.set()
        for p in loads:
            if p.poll() is None:
                p.kill()
        server.terminate()
        server.wait(timeout=60)
        log.close()

    third = max(1, len(samples) // 3)
    middle = statistics.median(r[1] for r in samples[third:2 * third] or samples)
    last = statistics.median(r[1] for r in samples[2 * third:] or samples)
    growth = last / middle - 1
    problems = [line.rstrip() for line in open(log_path) if re.search(r'\b(WARN|ERROR)\b|panicked', line)]
    print()
    for name in ('orders.txt', 'ticks.txt'):
        print(f'--- loadgen {name}')
        print(open(os.path.join(work, name)).read().strip())
    print()
    print(f'RSS median, second third: {middle:.1f} MiB; last third: {last:.1f} MiB; growth {growth * 100:+.1f} %')
    print(f'sign-ins: {counts["ok"]} ok, {counts["failed"]} failed')
    print(f'history: lag {lag} commands after {caught_up_after:.1f} s')
    print(f'server log: {len(problems)} warnings or errors')
    for line in problems[:20]:
        print('  ' + line)
    failed = growth > 0.10 or problems or counts['failed'] or lag > CAUGHT_UP_LAG
    print('verdict:', 'FAILED' if failed else 'passed')
    shutil.rmtree(work, ignore_errors=True)
    sys.exit(1 if failed else 0)


if __name__ == '__main__':
    main()
