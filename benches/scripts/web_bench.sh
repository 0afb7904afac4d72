#!/usr/bin/env bash
# The web app's benchmarks of BENCHMARKS.md ("Web app"), in headless Chromium against a
# release trading-server on loopback: initial JavaScript per route as the browser loads it,
# navigation to a chart full of history (cold and warm), and tick-to-screen latency at the
# simulator's 4 ticks/s against the websocket's own delivery to a bare page (the baseline).
#
#   benches/scripts/web_bench.sh [rounds=3] [seconds of ticks per round=60]
set -euo pipefail
cd "$(dirname "$0")/../.."
cargo build --release -q -p gateway --bin trading-server
(cd tests/e2e && npm ci --no-audit --no-fund --loglevel=error)
TRADING_SERVER_BIN="$PWD/target/release/trading-server" node tests/e2e/bench/web-bench.mjs "${1:-3}" "${2:-60}"
