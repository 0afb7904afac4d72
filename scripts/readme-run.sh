#!/usr/bin/env bash
# Runs README.md's "Run the product" command exactly as the README writes it, as a newcomer
# would, and checks that it serves the app and the API; then stops it with Ctrl-C's signal and
# checks that it stopped cleanly. Only the address, the metrics address and the data directory
# move, through the environment variables the README documents, so that the run touches
# nothing of the checkout's own ./data and no port another test uses.
#
# The command is read from README.md, not copied here: if the README changes, this runs what
# it says. The first run builds the release binary (minutes); later runs reuse it.
set -euo pipefail
cd "$(dirname "$0")/.."

command=$(awk '/^## Run the product/{f=1} f&&/^```sh/{g=1;next} g&&/^```/{exit} g{print}' README.md |
  grep -v '^#' | head -1)
if [ -z "$command" ]; then
  echo "README.md has no command under \"## Run the product\"" >&2
  exit 1
fi

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
port=$(free_port)
metrics_port=$(free_port)
data=$(mktemp -d)
log="$data.log"
pid=
cleanup() {
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    kill -KILL -- "-$pid" 2>/dev/null || true
  fi
  rm -rf "$data" "$log"
}
trap cleanup EXIT

echo "running README's command: $command"
echo "  (TRADING_LISTEN=127.0.0.1:$port TRADING_METRICS_LISTEN=127.0.0.1:$metrics_port TRADING_DATA_DIR=$data)"
started=$(date +%s)
# A process group of its own, so that the interrupt reaches cargo and the server as Ctrl-C would.
TRADING_LISTEN="127.0.0.1:$port" TRADING_METRICS_LISTEN="127.0.0.1:$metrics_port" \
  TRADING_DATA_DIR="$data" setsid bash -c "exec $command" >"$log" 2>&1 &
pid=$!

# Waits until the server answers (the build comes first: up to 40 minutes on a cold cache).
deadline=$((started + 2400))
until curl -fsS "http://127.0.0.1:$port/api/markets" -o "$data.markets" 2>/dev/null; do
  if ! kill -0 "$pid" 2>/dev/null; then
    echo "README's command exited before it served /api/markets:" >&2
    tail -n 40 "$log" >&2
    exit 1
  fi
  if [ "$(date +%s)" -ge "$deadline" ]; then
    echo "README's command did not serve /api/markets within 40 minutes:" >&2
    tail -n 40 "$log" >&2
    exit 1
  fi
  sleep 1
done
ready=$(date +%s)

fail() {
  echo "$1" >&2
  tail -n 40 "$log" >&2
  exit 1
}
grep -q '"symbol":"BTCUSDT"' "$data.markets" || fail "/api/markets does not list BTCUSDT"
page=$(curl -fsS "http://127.0.0.1:$port/")
echo "$page" | grep -q '<div id="root">' || fail "/ does not serve the web app"
echo "$page" | grep -q 'not built' && fail "/ serves the placeholder: the web app was not built"
grep -q 'password' "$log" || fail "the first start did not print the first admin's password"

kill -INT -- "-$pid"
status=0
wait "$pid" || status=$?
pid=
rm -f "$data.markets"
[ "$status" = 0 ] || fail "README's command exited with $status after Ctrl-C"
grep -q 'stopped cleanly' "$log" || fail "the server did not report a clean stop"
echo "README's run command served the app and /api/markets after $((ready - started)) s and stopped cleanly"
