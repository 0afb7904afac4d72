"""Schemathesis over the OpenAPI document a real trading-server serves.

Starts the server built by cargo on a temporary data directory and a free port, creates the
fuzzer's user and a second user the admin operations act on, then runs every schemathesis
check and phase with a fixed seed. Fails on any schemathesis failure, and on a panic or an
ERROR or WARN line in the server's log.

    python3 tests/api-fuzz/run.py [--examples N] [--seed N] [--server PATH]

API_FUZZ_EXAMPLES and API_FUZZ_SEED set the same from the environment (run.sh installs
schemathesis in a virtual environment and calls this).
"""

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
ADMIN_PASSWORD = "fuzz-admin-pass-1"
USER_PASSWORD = "fuzz-user-pass-1"
START_TIMEOUT_S = 30


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def post(base: str, path: str, body: dict) -> dict:
    request = urllib.request.Request(
        base + path,
        data=json.dumps(body).encode(),
        headers={"content-type": "application/json"},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return json.load(answer)
    except urllib.error.HTTPError as error:
        return json.load(error)


def wait_healthy(base: str, server: subprocess.Popen) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if server.poll() is not None:
            sys.exit(f"api-fuzz: the server exited with {server.returncode} before it answered")
        try:
            with urllib.request.urlopen(base + "/api/health", timeout=1) as answer:
                if answer.status == 200:
                    return
        except OSError:
            time.sleep(0.1)
    sys.exit(f"api-fuzz: the server did not answer within {START_TIMEOUT_S} s")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--examples", type=int, default=int(os.environ.get("API_FUZZ_EXAMPLES", 50)))
    parser.add_argument("--seed", type=int, default=int(os.environ.get("API_FUZZ_SEED", 1)))
    parser.add_argument("--server", default=str(ROOT / "target/debug/trading-server"))
    parser.add_argument("--schemathesis", default=shutil.which("schemathesis") or "schemathesis")
    args = parser.parse_args()

    data = Path(tempfile.mkdtemp(prefix="api-fuzz-"))
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    log_path = data / "server.log"
    with open(log_path, "wb") as log:
        # Without rate limits: the fuzzer signs in again whenever a generated call ends its
        # session, and the limits (tested in gateway/tests) would turn that into 429s.
        server = subprocess.Popen(
            [args.server, "--data-dir", str(data / "data"), "--listen", f"127.0.0.1:{port}",
             "--admin-password", ADMIN_PASSWORD, "--no-rate-limits", "--metrics-listen", "none",
             "--log-format", "text"],
            stdout=log, stderr=subprocess.STDOUT,
        )
    try:
        wait_healthy(base, server)
        for name in ("fuzzer", "victim"):
            answer = post(base, "/api/login/register",
                          {"username": name, "email": f"{name}@example.com", "password": USER_PASSWORD})
            if not answer.get("success"):
                sys.exit(f"api-fuzz: could not register {name}: {answer}")
        env = dict(os.environ, FUZZ_PASSWORD=USER_PASSWORD, FUZZ_ADMIN_PASSWORD=ADMIN_PASSWORD,
                   NO_COLOR="1")
        run = subprocess.run(
            [args.schemathesis, "--no-color", "run", f"{base}/api/openapi.json", "--checks", "all",
             "--seed", str(args.seed), "--max-examples", str(args.examples), "--workers", "2"],
            cwd=HERE, env=env,
        )
    finally:
        server.terminate()
        server.wait(timeout=30)
    log_text = log_path.read_text(errors="replace")
    bad = [line for line in log_text.splitlines()
           if "panicked" in line or " ERROR " in line or " WARN " in line]
    if bad:
        print("api-fuzz: the server's log has errors:", *bad[:20], sep="\n  ")
    if run.returncode != 0 or bad:
        print(f"api-fuzz: FAILED (schemathesis exit {run.returncode}); server log in {log_path}")
        return 1
    shutil.rmtree(data, ignore_errors=True)
    print(f"api-fuzz: 0 failures ({args.examples} examples per operation, seed {args.seed})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
