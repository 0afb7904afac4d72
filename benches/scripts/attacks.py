#!/usr/bin/env python3
"""The attacks of the security review, measured against the release server on loopback.

    benches/scripts/attacks.py [--idle-addresses 82] [--idle-per-address 230]

Starts target/release/trading-server on a temporary data directory and measures, the way the
review did:
  1. two-factor guessing: wrong codes sent to POST /api/user/2fa/disable with a user's session
     until the server refuses; how many were taken, and what the refusal says;
  2. idle sockets: connections from many 127.x addresses that send nothing or half a request
     head; how many the server holds, /api/health latency while they are held, and how long
     until the held ones are closed;
  3. distributed password guessing: wrong passwords for one account, each from another 127.x
     address; how many are looked at before the account's budget answers 429, and the rate
     after that (one try per Retry-After).
Prints one markdown table. Needs `cargo build --release -p gateway` first.
"""
import argparse
import base64
import hashlib
import hmac
import json
import os
import shutil
import socket
import statistics
import struct
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
SERVER = os.path.join(ROOT, 'target', 'release', 'trading-server')


def free_port():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


def call(base, method, path, body=None, token=None, source=None, timeout=10):
    """One request (from `source`, a 127.x address, when given); (status, json, headers)."""
    host, port = base
    conn = socket.create_connection((host, port), timeout=timeout,
                                    source_address=(source, 0) if source else None)
    data = json.dumps(body).encode() if body is not None else b''
    head = [f'{method} {path} HTTP/1.1', f'Host: {host}', 'Connection: close',
            f'Content-Length: {len(data)}']
    if body is not None:
        head.append('Content-Type: application/json')
    if token:
        head.append(f'Authorization: Bearer {token}')
    conn.sendall(('\r\n'.join(head) + '\r\n\r\n').encode() + data)
    chunks = []
    while True:
        chunk = conn.recv(65536)
        if not chunk:
            break
        chunks.append(chunk)
    conn.close()
    raw = b''.join(chunks)
    header, _, payload = raw.partition(b'\r\n\r\n')
    lines = header.decode().split('\r\n')
    status = int(lines[0].split()[1])
    headers = {k.lower(): v.strip() for k, _, v in (l.partition(':') for l in lines[1:])}
    if headers.get('transfer-encoding') == 'chunked':
        payload = dechunk(payload)
    try:
        return status, json.loads(payload), headers
    except ValueError:
        return status, None, headers


def dechunk(payload):
    out = b''
    while payload:
        size, _, rest = payload.partition(b'\r\n')
        n = int(size, 16)
        if n == 0:
            break
        out += rest[:n]
        payload = rest[n + 2:]
    return out


def totp(secret, step):
    key = base64.b32decode(secret + '=' * (-len(secret) % 8))
    digest = hmac.new(key, struct.pack('>Q', step), hashlib.sha1).digest()
    offset = digest[-1] & 0x0f
    value = struct.unpack('>I', digest[offset:offset + 4])[0] & 0x7fffffff
    return f'{value % 1_000_000:06d}'


def wrong_code(secret):
    now = int(time.time()) // 30
    valid = {totp(secret, s) for s in (now - 1, now, now + 1)}
    return next(f'{n:06d}' for n in range(1_000_000) if f'{n:06d}' not in valid)


def register(base, name):
    body = {'username': name, 'email': f'{name}@example.com', 'password': 'secret-pass-1'}
    status, answer, _ = call(base, 'POST', '/api/login/register', body)
    assert status == 200, answer
    status, answer, _ = call(base, 'POST', '/api/login/login',
                             {'username': name, 'password': 'secret-pass-1'})
    assert status == 200, answer
    return answer['data']['token']


def two_factor_guessing(base):
    token = register(base, 'victim2fa')
    _, setup, _ = call(base, 'POST', '/api/user/2fa/setup', {}, token)
    secret = setup['data']['secret']
    step = int(time.time()) // 30
    status, answer, _ = call(base, 'POST', '/api/user/2fa/enable',
                             {'secret': secret, 'code': totp(secret, step)}, token)
    assert status == 200, answer
    taken = 0
    started = time.time()
    while True:
        status, answer, headers = call(base, 'POST', '/api/user/2fa/disable',
                                       {'code': wrong_code(secret), 'password': 'secret-pass-1'},
                                       token)
        if status == 429:
            return taken, answer['code'], headers.get('retry-after'), time.time() - started
        assert answer['code'] == 'INVALID_TOTP', answer
        taken += 1


def idle_sockets(base, addresses, per_address):
    host, port = base
    held = []
    for a in range(addresses):
        source = f'127.0.{10 + a // 250}.{1 + a % 250}'
        for i in range(per_address):
            try:
                s = socket.create_connection((host, port), timeout=5, source_address=(source, 0))
            except OSError:
                continue
            if i % 2:
                s.sendall(b'GET /api/health HTTP/1.1\r\nHost: slow\r\nX-Slow: ')
            held.append(s)
    opened = time.time()
    # Latency of a new client while they are held.
    latencies = []
    for _ in range(50):
        t = time.perf_counter()
        status, _, _ = call(base, 'GET', '/api/health')
        latencies.append((time.perf_counter() - t) * 1000)
        assert status == 200
    # Which are still open now (the server closed the ones over the caps at once).
    open_now = 0
    for s in held:
        s.setblocking(False)
        try:
            data = s.recv(1)
            if data:
                open_now += 1
        except BlockingIOError:
            open_now += 1
        except OSError:
            pass
    # How long until every held one is closed.
    for s in held:
        s.setblocking(True)
        s.settimeout(60)
        try:
            while s.recv(1024):
                pass
        except OSError:
            pass
    closed_after = time.time() - opened
    for s in held:
        s.close()
    latencies.sort()
    return (len(held), open_now, statistics.median(latencies),
            latencies[int(len(latencies) * 0.99) - 1], closed_after)


def distributed_guessing(base):
    register(base, 'victimpw')
    looked_at = 0
    for i in range(1, 1000):
        source = f'127.1.{i // 250}.{1 + i % 250}'
        status, answer, headers = call(base, 'POST', '/api/login/login',
                                       {'username': 'victimpw', 'password': f'guess-{i}'},
                                       source=source)
        if status == 429:
            return looked_at, answer['code'], int(headers.get('retry-after', '0'))
        looked_at += 1
    return looked_at, None, 0


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--idle-addresses', type=int, default=82)
    parser.add_argument('--idle-per-address', type=int, default=230)
    args = parser.parse_args()
    if not os.path.exists(SERVER):
        sys.exit('build first: cargo build --release -p gateway')
    data = tempfile.mkdtemp()
    port = free_port()
    env = dict(os.environ, TRADING_LISTEN=f'127.0.0.1:{port}', TRADING_DATA_DIR=data,
               TRADING_METRICS_LISTEN='none', TRADING_ADMIN_PASSWORD='attacks-admin-1')
    log = open(os.path.join(data, 'server.log'), 'w')
    server = subprocess.Popen([SERVER], env=env, stdout=log, stderr=subprocess.STDOUT)
    base = ('127.0.0.1', port)
    try:
        deadline = time.time() + 60
        while True:
            try:
                if call(base, 'GET', '/api/health')[0] == 200:
                    break
            except OSError:
                pass
            if time.time() > deadline:
                sys.exit('the server did not start')
            time.sleep(0.2)
        taken, code, retry, seconds = two_factor_guessing(base)
        attempts, held, p50, p99, closed = idle_sockets(base, args.idle_addresses,
                                                        args.idle_per_address)
        looked, refusal, retry_pw = distributed_guessing(base)
        per_hour = looked + (3600 // retry_pw if retry_pw else 0)
        print('| attack | what it gets now |')
        print('|---|---|')
        print(f'| wrong TOTP codes on /api/user/2fa/disable | {taken + 1} counted in {seconds:.1f} s, '
              f'the last answered 429 {code} (Retry-After {retry} s) |')
        print(f'| idle and half-sent sockets, {args.idle_addresses} addresses x '
              f'{args.idle_per_address} | {attempts} opened, {held} held; /api/health p50 '
              f'{p50:.1f} ms, p99 {p99:.1f} ms while held; all closed {closed:.1f} s after '
              f'opening |')
        print(f'| wrong passwords on one account, one per address | {looked} looked at, then '
              f'429 {refusal}; one more every {retry_pw} s: at most ~{per_hour} in the first '
              f'hour |')
    finally:
        server.terminate()
        server.wait(timeout=30)
        log.close()
        shutil.rmtree(data, ignore_errors=True)


if __name__ == '__main__':
    main()
