#!/usr/bin/env bash
# Runs every benchmark of BENCHMARKS.md at its target size and prints the median lines.
# Takes about 15 minutes on a 2-core machine; run it on an otherwise idle machine.
# CORE_BENCH_DIR chooses where the durable benches write (default: the system temp dir).
set -euo pipefail
cd "$(dirname "$0")/.."

cargo build --release --locked -p benches --bin core-bench
bench=target/release/core-bench
echo "== machine"; nproc; grep -m1 'model name' /proc/cpuinfo || true; uptime

echo "== engine-mix: 100k accounts, 1M open contracts, 10M commands"
"$bench" engine-mix 100000 1000000 10000000 3
echo "== engine-shards: the same mix over 2 engines on 2 threads (the sharding model)"
"$bench" engine-shards 2 100000 1000000 10000000 3
echo "== settle-burst: 1M contracts expiring on one tick"
"$bench" settle-burst 1000000 3
echo "== snapshot: take and restore with 1M users, 1M open contracts"
"$bench" snapshot 1000000 1000000 3
echo "== fsync baseline"
"$bench" fsync 10000 3 256
echo "== durable pipeline throughput"
CORE_BENCH_WAIT=half "$bench" pipeline-throughput 4 5000000 3 1024 100000
echo "== durable pipeline latency at 100k/s offered"
"$bench" pipeline-latency 100000 10 3 2 100000
echo "== recovery: 1M users, 1M open contracts, 10M records after the snapshot"
"$bench" recovery 1000000 1000000 10000000 3
echo "== the same restart, each in a fresh process"
"$bench" recovery-fresh 1000000 1000000 10000000 3

echo "== criterion: engine mix and candles"
cargo bench --locked -p benches --bench engine -- --warm-up-time 2 --measurement-time 5
cargo bench --locked -p benches --bench candles -- --warm-up-time 1 --measurement-time 3

echo "== the read model's projector alone, at the websocket bench's stream (20k orders/s)"
cargo bench --locked -p gateway --bench projector -- 1000 20000 10 3
