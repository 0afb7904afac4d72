#!/usr/bin/env python3
"""Sign-ins/s with argon2id, and order latency idle vs during a login storm.

Usage: signin_storm.py BASE_URL [STORM_THREADS] [SECONDS]
Start the server with --no-rate-limits (a storm from one address is what the limits stop).
Prints medians; run it three times and quote the median of the medians.
"""
import json, statistics, sys, threading, time, urllib.request

BASE = sys.argv[1].rstrip('/')
STORM = int(sys.argv[2]) if len(sys.argv) > 2 else 8
SECONDS = float(sys.argv[3]) if len(sys.argv) > 3 else 10


def call(path, body=None, token=None):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(BASE + path, data=data, method='POST' if data else 'GET')
    req.add_header('content-type', 'application/json')
    if token:
        req.add_header('authorization', 'Bearer ' + token)
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.load(r)


def order_latencies(token, seconds):
    out, end = [], time.time() + seconds
    while time.time() < end:
        t = time.perf_counter()
        call('/api/trade/orders', {"symbol": "BTCUSDT", "direction": "up", "amount": "1", "duration": 60, "account": "demo"}, token)
        out.append((time.perf_counter() - t) * 1000)
        time.sleep(0.1)  # 10 orders/s: stays under the 200 open contracts per user
    return out


def main():
    stamp = str(int(time.time()))[-6:]
    name = 'bench' + stamp
    call('/api/login/register', {"username": name, "email": name + "@example.com", "password": "secret1"})
    token = call('/api/login/login', {"username": name, "password": "secret1"})['data']['token']
    storm_name = 'storm' + stamp  # its sessions churn; the trader's must not
    call('/api/login/register', {"username": storm_name, "email": storm_name + "@example.com", "password": "secret1"})
    idle = order_latencies(token, SECONDS / 2)
    stop, count, lock = threading.Event(), [0], threading.Lock()

    def storm():
        while not stop.is_set():
            call('/api/login/login', {"username": storm_name, "password": "secret1"})
            with lock:
                count[0] += 1

    threads = [threading.Thread(target=storm) for _ in range(STORM)]
    started = time.time()
    for t in threads:
        t.start()
    busy = order_latencies(token, SECONDS)
    stop.set()
    for t in threads:
        t.join()
    elapsed = time.time() - started
    idle_p50, busy_p50 = statistics.median(idle), statistics.median(busy)
    print(json.dumps({
        "signins_per_s": round(count[0] / elapsed, 1),
        "order_ms_p50_idle": round(idle_p50, 2),
        "order_ms_p50_storm": round(busy_p50, 2),
        "ratio": round(busy_p50 / idle_p50, 2),
        "order_ms_p99_storm": round(sorted(busy)[int(len(busy) * 0.99) - 1], 2),
    }))


main()
