#!/usr/bin/env bash
# HTTP reads of BENCHMARKS.md ("HTTP"): a chart's history
# (`GET /api/markets/BTCUSDT/candles?period=1m&limit=500`) against `GET /api/health` in the
# same run, each with Debian's wrk (`wrk -t1 -c64 --latency`) for 10 s, on a release
# trading-server on loopback with its embedded defaults. With two servers, the rounds
# alternate between them (an A/B in one session). Beside each figure: the server's CPU time
# (user + system, from /proc) per request, steadier than throughput with wrk on the same cores.
#
#   benches/scripts/http_bench.sh [rounds=3] [server binary A] [server binary B]
set -euo pipefail
cd "$(dirname "$0")/../.."
rounds="${1:-3}"
a="${2:-}"
b="${3:-}"
if [[ -z "$a" ]]; then
  cargo build --release -q -p gateway --bin trading-server
  a="$PWD/target/release/trading-server"
fi
command -v wrk >/dev/null || { echo "wrk is needed (apt-get install wrk)" >&2; exit 1; }
port=18480
ticks="$(getconf CLK_TCK)"

# User + system time of process $1, in clock ticks.
cpu_ticks() {
  awk '{print $14 + $15}' "/proc/$1/stat"
}

# Starts $1 on a fresh directory, waits for health, runs wrk on both paths, stops it.
round() {
  local bin="$1" label="$2" dir
  dir="$(mktemp -d)"
  "$bin" --data-dir "$dir" --listen "127.0.0.1:$port" --metrics-listen none \
    --admin-password "bench-password-1" >"$dir/server.log" 2>&1 &
  local pid=$!
  for _ in $(seq 1 300); do
    curl -fs "http://127.0.0.1:$port/api/health" >/dev/null 2>&1 && break
    sleep 0.1
  done
  # Warm both (the first chart request reads the store).
  curl -fs "http://127.0.0.1:$port/api/markets/BTCUSDT/candles?period=1m&limit=500" >/dev/null
  for path in "/api/health" "/api/markets/BTCUSDT/candles?period=1m&limit=500"; do
    local out rps p99 requests before after
    before="$(cpu_ticks "$pid")"
    out="$(wrk -t1 -c64 -d10s --latency "http://127.0.0.1:$port$path")"
    after="$(cpu_ticks "$pid")"
    rps="$(awk '/Requests\/sec/ {print $2}' <<<"$out")"
    p99="$(awk '$1 == "99%" {print $2}' <<<"$out")"
    requests="$(awk '/requests in/ {print $1}' <<<"$out")"
    echo "$label $path: $rps req/s, p99 $p99, server CPU $(( (after - before) * 1000000 / ticks / requests )) µs/request"
  done
  kill "$pid"
  wait "$pid" 2>/dev/null || true
  rm -rf "$dir"
}

for i in $(seq 1 "$rounds"); do
  round "$a" "A round $i"
  if [[ -n "$b" ]]; then
    round "$b" "B round $i"
  fi
done
