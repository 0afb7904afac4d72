#!/usr/bin/env bash
# Installs schemathesis (pinned) in a virtual environment under target/ and runs run.py:
# every schemathesis check over the document a real trading-server serves.
#   API_FUZZ_EXAMPLES=N  examples per operation (default 50)
#   API_FUZZ_SEED=N      the seed (default 1)
set -euo pipefail
cd "$(dirname "$0")/../.."
SCHEMATHESIS_VERSION=4.32.5
venv="$PWD/target/api-fuzz-venv"
if ! python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then
  echo "installing Debian's python3-venv"
  sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends python3 python3-venv >/dev/null
fi
if ! "$venv/bin/schemathesis" --version 2>/dev/null | grep -q "$SCHEMATHESIS_VERSION"; then
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$SCHEMATHESIS_VERSION"
fi
exec "$venv/bin/python" tests/api-fuzz/run.py --schemathesis "$venv/bin/schemathesis" "$@"
