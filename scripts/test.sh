#!/usr/bin/env bash
# Runs every check and test of the repository:
#   the web app's type check, ESLint (its module boundaries and hooks), the check that its API types
#   (src/types/openapi.gen.ts) are generated from the committed openapi.json, and component tests (Vitest),
#   rustfmt, clippy and every Rust test of the workspace,
#   the web bundle budgets,
#   the end-to-end journeys in headless Chromium against a real trading-server,
#   schemathesis over the OpenAPI document a real trading-server serves,
#   README's "Run the product" command, word for word (scripts/readme-run.sh).
# Needs the Rust toolchain, Node.js (20.19 or newer) with npm and Python 3 with venv; installs
# Debian's chromium when it is missing (as root, or through sudo) and schemathesis from PyPI.
set -euo pipefail
cd "$(dirname "$0")/.."

# A run of every test builds from scratch on CI: the incremental cache would only take disk.
export CARGO_INCREMENTAL="${CARGO_INCREMENTAL:-0}"

logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT

# rustfmt and clippy ship with the toolchain here; if a machine lacks them and cannot fetch
# them, the checks are skipped loudly and the tests still run.
rustup component add rustfmt clippy >/dev/null 2>&1 || true

echo "== web: npm ci, type check, lint, generated API types, component tests"
(cd web && npm ci --no-audit --no-fund --loglevel=error)
(cd web && npm run typecheck)
(cd web && npm run lint)
(cd web && npm run check:api-types)
(cd web && npx vitest run) 2>&1 | tee "$logs/vitest.log"

echo "== format"
if cargo fmt --version >/dev/null 2>&1; then
  cargo fmt --all --check
else
  echo "SKIPPED: rustfmt is not installed"
fi

echo "== clippy (its build of the gateway also builds the web app, gateway/build.rs)"
if cargo clippy --version >/dev/null 2>&1; then
  cargo clippy --workspace --all-targets --locked -- -D warnings
else
  echo "SKIPPED: clippy is not installed"
fi

echo "== wallet signer (npm ci in tests/wallet)"
(cd tests/wallet && npm ci --no-audit --no-fund --loglevel=error)

echo "== tests"
cargo test --workspace --locked 2>&1 | tee "$logs/cargo.log"

echo "== web bundle budgets (initial JavaScript per route, gzipped, of the build cargo made)"
(cd web && node scripts/size.mjs)

echo "== end-to-end journeys in headless Chromium"
if ! command -v chromium >/dev/null 2>&1; then
  echo "installing Debian's chromium"
  install=(apt-get install -y --no-install-recommends chromium)
  if [ "$(id -u)" = 0 ]; then
    DEBIAN_FRONTEND=noninteractive apt-get update -qq && DEBIAN_FRONTEND=noninteractive "${install[@]}" >/dev/null
  else
    sudo DEBIAN_FRONTEND=noninteractive apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive "${install[@]}" >/dev/null
  fi
fi
# The journeys run target/debug/trading-server, which `cargo test` built for the gateway's
# integration tests (a `cargo build` here would rebuild it: without the dev-dependencies, some
# crates' features differ, which took four minutes of a CI run).
test -x target/debug/trading-server
(cd tests/e2e && npm ci --no-audit --no-fund --loglevel=error)
(cd tests/e2e && npm test) 2>&1 | tee "$logs/e2e.log"

echo "== API fuzzing: schemathesis over the served OpenAPI document (tests/api-fuzz)"
tests/api-fuzz/run.sh 2>&1 | tee "$logs/api-fuzz.log"

echo "== README's run command, as a newcomer runs it"
# CI's clone is thrown away after the run, and the release build below needs a few more
# gigabytes on a disk that other jobs share (a CI run once failed there with no space left):
# the debug build has served every suite by now, so CI drops it first. A developer's run
# keeps it, since the next `cargo test` would otherwise start from nothing.
if [ "${TRADING_CI_DROP_DEBUG_BUILD:-0}" = 1 ]; then
  rm -rf target/debug
fi
scripts/readme-run.sh

# One closing line over every suite.
rust_passed=$(awk '/^test result:/ {s += $4} END {print s + 0}' "$logs/cargo.log")
rust_failed=$(awk '/^test result:/ {s += $6} END {print s + 0}' "$logs/cargo.log")
web_passed=$(sed -E 's/\x1b\[[0-9;]*m//g' "$logs/vitest.log" | awk '/^ +Tests +/ {for (i = 1; i <= NF; i++) if ($(i + 1) ~ /^passed/) print $i}' | tail -1)
e2e_passed=$(awk '/^ℹ pass/ {print $3}' "$logs/e2e.log" | tail -1)
e2e_failed=$(awk '/^ℹ fail/ {print $3}' "$logs/e2e.log" | tail -1)
fuzz_cases=$(sed -nE 's/^ +([0-9]+) generated, ([0-9]+) passed.*/\2/p' "$logs/api-fuzz.log" | tail -1)
echo "tests: rust ${rust_passed} passed, ${rust_failed} failed; web ${web_passed:-0} passed; end-to-end ${e2e_passed:-0} passed, ${e2e_failed:-0} failed; API fuzz ${fuzz_cases:-0} cases passed"
