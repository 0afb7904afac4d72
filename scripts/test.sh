#!/usr/bin/env bash
# Runs every check and test of the repository. Needs the Rust toolchain, and Node.js with npm
# for the wallet-signature tests (ethers and tronweb sign as real wallets do).
set -euo pipefail
cd "$(dirname "$0")/.."

# rustfmt and clippy ship with the toolchain here; if a machine lacks them and cannot fetch
# them, the checks are skipped loudly and the tests still run.
rustup component add rustfmt clippy >/dev/null 2>&1 || true

echo "== format"
if cargo fmt --version >/dev/null 2>&1; then
  cargo fmt --all --check
else
  echo "SKIPPED: rustfmt is not installed"
fi

echo "== clippy"
if cargo clippy --version >/dev/null 2>&1; then
  cargo clippy --workspace --all-targets --locked -- -D warnings
else
  echo "SKIPPED: clippy is not installed"
fi

echo "== wallet signer (npm ci in tests/wallet)"
(cd tests/wallet && npm ci --no-audit --no-fund --loglevel=error)

echo "== tests"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
cargo test --workspace --locked 2>&1 | tee "$log"
# One closing line over every suite (cargo prints one "test result" line per test binary).
passed=$(awk '/^test result:/ {s += $4} END {print s + 0}' "$log")
failed=$(awk '/^test result:/ {s += $6} END {print s + 0}' "$log")
echo "tests: $passed passed, $failed failed"
