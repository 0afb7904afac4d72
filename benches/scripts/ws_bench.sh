#!/usr/bin/env bash
# The websocket benchmarks of BENCHMARKS.md, each beside its baseline in the same run:
#   orders over websockets (trading-server)  vs  the plain fastwebsockets echo server (ws-echo)
#                                            and the engine's durable pipeline alone (core-bench)
#   ticks to many clients, memory per idle connection (trading-server, fresh each time)
# Three rounds; the load generator runs on the same machine as the server.
#
#   benches/scripts/ws_bench.sh [rounds=3]      (about 5 minutes a round)
#
# Each process may hold at most `ulimit -Hn` sockets: the client counts stay under it.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROUNDS=${1:-3}
cargo build --release -q -p gateway --bin trading-server -p benches --bin loadgen --bin ws-echo --bin core-bench
BIN=target/release
DATA=$(mktemp -d)
ADMIN_PASSWORD=bench-password-1
FDS=$(ulimit -Hn)
# The server accepts sockets up to its descriptor limit less the 1 024 it keeps in reserve
# (gateway/src/http.rs): stay under that, or the last connections are refused.
CLIENTS_MAX=$(( FDS > 20100 ? 19000 : FDS - 1100 ))
SERVER_PID=""
ECHO_PID=""

stop_server() {
    if [ -n "$SERVER_PID" ]; then
        kill "$SERVER_PID" 2>/dev/null || true
        wait "$SERVER_PID" 2>/dev/null || true
        SERVER_PID=""
    fi
}

# A fresh server on an empty data directory (no read-model backlog from an earlier run).
start_server() {
    stop_server
    rm -rf "$DATA/server"
    "$BIN/trading-server" --data-dir "$DATA/server" --listen 127.0.0.1:8080 \
        --admin-password "$ADMIN_PASSWORD" --no-rate-limits --ws-messages-per-second 100000 \
        --ws-connections-per-ip-max 20000 --hash-threads 2 >"$DATA/server.log" 2>&1 &
    SERVER_PID=$!
    for _ in $(seq 1 100); do
        curl -sf http://127.0.0.1:8080/api/health >/dev/null 2>&1 && return 0
        sleep 0.2
    done
    echo "server did not start" >&2
    exit 1
}

cleanup() {
    stop_server
    [ -n "$ECHO_PID" ] && kill "$ECHO_PID" 2>/dev/null || true
    rm -rf "$DATA"
}
trap cleanup EXIT

ulimit -n "$FDS"
"$BIN/ws-echo" 127.0.0.1:9001 >/dev/null &
ECHO_PID=$!
sleep 0.5

for round in $(seq 1 "$ROUNDS"); do
    echo "=== round $round"
    echo "--- baseline: ws-echo, 1000 clients, 20 k orders/s offered"
    "$BIN/loadgen" --echo --server 127.0.0.1:9001 --clients 1000 --rate 20000 --seconds 10 --warmup 3 | tail -2
    echo "--- baseline: durable pipeline alone, 20 k commands/s offered"
    CORE_BENCH_DIR="$DATA" "$BIN/core-bench" pipeline-latency 20000 10 1 2 100000 | tail -1
    echo "--- trading-server, 1000 traders, 20 k orders/s offered"
    start_server
    "$BIN/loadgen" --clients 1000 --users 1000 --rate 20000 --seconds 10 --warmup 3 --admin-password "$ADMIN_PASSWORD" --server-pid "$SERVER_PID" | tail -4
    echo "--- baseline: ws-echo, 1000 clients, 150 k orders/s offered (its ceiling)"
    "$BIN/loadgen" --echo --server 127.0.0.1:9001 --clients 1000 --rate 150000 --seconds 10 --warmup 3 | tail -2
    echo "--- baseline: durable pipeline alone, throughput"
    CORE_BENCH_DIR="$DATA" CORE_BENCH_WAIT=half "$BIN/core-bench" pipeline-throughput 4 2000000 1 1024 100000 | tail -1
    echo "--- trading-server, 2000 traders, 60 k orders/s offered (its ceiling)"
    start_server
    "$BIN/loadgen" --clients 2000 --users 2000 --rate 60000 --seconds 10 --warmup 3 --admin-password "$ADMIN_PASSWORD" --server-pid "$SERVER_PID" | tail -4
    echo "--- trading-server, 1000 traders, 20 k orders/s for 60 s: history's lag behind the engine"
    start_server
    "$BIN/loadgen" --clients 1000 --users 1000 --rate 20000 --seconds 60 --warmup 3 --admin-password "$ADMIN_PASSWORD" --metrics 127.0.0.1:9184 | grep -E "^(history|orders)"
    echo "--- trading-server, $CLIENTS_MAX idle clients: memory per connection"
    start_server
    "$BIN/loadgen" --mode idle --clients "$CLIENTS_MAX" --server-pid "$SERVER_PID" | tail -1
    for clients in 10000 "$CLIENTS_MAX"; do
        echo "--- trading-server, $clients clients on 4 symbols' ticks (4/s each)"
        "$BIN/loadgen" --mode ticks --clients "$clients" --seconds 10 --warmup 3 | tail -2
    done
done
