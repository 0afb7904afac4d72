#!/usr/bin/env bash
# HTTP order placement latency at a fixed rate, beside GET /api/health at the same rate in the
# same round, both driven by oha (crates.io; `cargo install oha --locked`), an open-loop
# load tool with a rate limit (-q). One release trading-server on a fresh data directory.
#
#   benches/scripts/http_order_bench.sh [rounds=3] [rate=5000] [seconds=10]
#
# Orders are 1 USDT demo contracts of 5 s (a rule the script adds) from 4 traders, each
# driven by its own oha at a quarter of the rate: a trader then holds about rate * 5 / 4
# contracts open, so the script raises the per-user open-contract limit to 10 000 and the
# demo grant to 1 000 000 USDT (set before the traders register).
set -euo pipefail
cd "$(dirname "$0")/../.."
ROUNDS=${1:-3}
RATE=${2:-5000}
SECONDS_RUN=${3:-10}
TRADERS=4
command -v oha >/dev/null || { echo "oha not found: cargo install oha --locked" >&2; exit 1; }
cargo build --release -q -p gateway --bin trading-server
BIN=target/release/trading-server
DATA=$(mktemp -d)
PORT=18080
URL=http://127.0.0.1:$PORT
ADMIN_PASSWORD=bench-password-1
"$BIN" --data-dir "$DATA/server" --listen 127.0.0.1:$PORT --admin-password "$ADMIN_PASSWORD" \
    --no-rate-limits --metrics-listen 127.0.0.1:19186 >"$DATA/server.log" 2>&1 &
SERVER_PID=$!
trap 'kill $SERVER_PID 2>/dev/null; wait $SERVER_PID 2>/dev/null; rm -rf "$DATA"' EXIT
for _ in $(seq 1 100); do
    curl -sf "$URL/api/health" >/dev/null 2>&1 && break
    sleep 0.2
done

# POST/PUT a JSON body, print the envelope's data.
call() { # method path token body
    curl -sf -X "$1" "$URL$2" -H 'content-type: application/json' \
        ${3:+-H "authorization: Bearer $3"} -d "$4" |
        python3 -c 'import json,sys; e=json.load(sys.stdin); assert e["success"], e; print(json.dumps(e["data"]))'
}
field() { python3 -c "import json,sys; print(json.load(sys.stdin)$1)"; }

ADMIN=$(call POST /api/admin/login "" "{\"username\":\"admin\",\"password\":\"$ADMIN_PASSWORD\"}" | field '["token"]')
call PUT /api/admin/rules "$ADMIN" '{"duration":5,"payoutRate":"0.8","minAmount":"1","maxAmount":"1000","feeRate":"0.01","enabled":true}' >/dev/null
CONFIG=$(curl -sf "$URL/api/admin/system/config" -H "authorization: Bearer $ADMIN" |
    python3 -c 'import json,sys; c=json.load(sys.stdin)["data"]; c["finance"].update(openContractsPerUserMax=10000, demoBalance="1000000"); print(json.dumps(c))')
call PUT /api/admin/system/config "$ADMIN" "$CONFIG" >/dev/null
TOKENS=()
for i in $(seq 1 $TRADERS); do
    name="ob$RANDOM$i"
    call POST /api/login/register "" "{\"username\":\"$name\",\"email\":\"$name@example.com\",\"password\":\"secret1\"}" >/dev/null
    TOKENS+=("$(call POST /api/login/login "" "{\"username\":\"$name\",\"password\":\"secret1\"}" | field '["token"]')")
done

# Requests/s, p50/p99/p99.9 (ms; the highest over the files) and status counts of oha's JSON.
cat >"$DATA/summary.py" <<'PY'
import json, sys
runs = [json.load(open(f)) for f in sys.argv[1:]]
def ms(q):
    return max(r["latencyPercentiles"][q] for r in runs) * 1000
codes = {}
for r in runs:
    for k, v in r["statusCodeDistribution"].items():
        codes[k] = codes.get(k, 0) + v
rps = sum(r["summary"]["requestsPerSec"] for r in runs)
print(f"{rps:.0f} req/s | p50 {ms('p50'):.2f} ms | p99 {ms('p99'):.2f} ms | p99.9 {ms('p99.9'):.2f} ms | status {codes}")
PY
summary() { python3 "$DATA/summary.py" "$@"; }

# The server's user + system CPU time so far, in clock ticks.
TICKS=$(getconf CLK_TCK)
cpu_ticks() { awk '{print $14 + $15}' "/proc/$SERVER_PID/stat"; }

OHA=(oha --no-tui --output-format json --latency-correction -z "${SECONDS_RUN}s")
for round in $(seq 1 "$ROUNDS"); do
    echo "=== round $round"
    "${OHA[@]}" -c 64 -q "$RATE" "$URL/api/health" >"$DATA/health.json"
    echo "GET /api/health at $RATE/s: $(summary "$DATA/health.json")"
    files=()
    before=$(cpu_ticks)
    for i in $(seq 0 $((TRADERS - 1))); do
        "${OHA[@]}" -c 16 -q $((RATE / TRADERS)) -m POST -H "authorization: Bearer ${TOKENS[$i]}" \
            -H 'content-type: application/json' \
            -d '{"symbol":"BTCUSDT","direction":"up","amount":"1","duration":5,"account":"demo"}' \
            "$URL/api/trade/orders" >"$DATA/orders$i.json" &
        files+=("$DATA/orders$i.json")
    done
    wait $(jobs -p | grep -v "^$SERVER_PID$") 2>/dev/null || true
    cpu=$(( $(cpu_ticks) - before ))
    echo "POST /api/trade/orders at $RATE/s: $(summary "${files[@]}") (p99 the highest of the $TRADERS traders'); server CPU $(( cpu * 1000000 / TICKS / (RATE * SECONDS_RUN) )) µs per order"
    # What a refusal says, if orders were refused (a trader's limit or balance, not the server).
    curl -s -X POST "$URL/api/trade/orders" -H "authorization: Bearer ${TOKENS[0]}" \
        -H 'content-type: application/json' \
        -d '{"symbol":"BTCUSDT","direction":"up","amount":"1","duration":5,"account":"demo"}' |
        python3 -c 'import json,sys; e=json.load(sys.stdin); e["success"] or print("a refusal now:", e.get("code"), e.get("message"))'
done
if grep -qiE "panic| error " "$DATA/server.log"; then
    echo "the server logged errors:" >&2
    grep -iE "panic| error " "$DATA/server.log" | head -5 >&2
fi
