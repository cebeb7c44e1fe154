#!/usr/bin/env bash
# The whole test suite, as CI runs it: set-up, formatting, clippy for both builds, unit + store (SQLite and
# PostgreSQL) + API tests, then the browser tests against a freshly started server.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_BUILD_JOBS=${CARGO_BUILD_JOBS:-2} CARGO_TERM_COLOR=${CARGO_TERM_COLOR:-never}
# PostgreSQL, the real llama.cpp server and the tests' Python packages are part of the suite: a test whose tool is
# missing fails, and a skip asked for outside CI (LG_SKIP_MISSING=1) fails this command after the tests say which.
started=$(date +%s)
step() { printf '\n\033[1m== %s\033[0m (%ss)\n' "$1" "$(( $(date +%s) - started ))"; shift; "$@"; }

step "setup" scripts/setup.sh --test
# What the set-up found or made: the tests' PostgreSQL and their Python (loopback SMTP and llama.cpp servers).
export TEST_POSTGRES_URL=${TEST_POSTGRES_URL:-$(cat target/test-postgres-url)}
export LG_PYTHON="$PWD/target/test-python/bin/python"
step "format" cargo fmt --check
# The browser build's lints and its release bundle use the CPU the server's build leaves between its crates and the
# Rust tests leave idle (most of them wait on a network, a database or a timer): they run beside them in the idle
# scheduling class (`chrt --idle`), which gets a core only when nothing else wants it, so the tests' timing is
# undisturbed. Their log is shown when they end.
mkdir -p target/tmp
front_log=target/tmp/browser-build.log
front_started=$(date +%s)
(
  set -euo pipefail
  # Its own class first, so every compiler it starts inherits it.
  if chrt --idle -p 0 "$BASHPID" 2>/dev/null; then echo "(idle scheduling class)"; else
    renice -n 19 -p "$BASHPID" >/dev/null; echo "(nice 19: chrt --idle was refused)"; fi
  echo "== clippy: browser"
  cargo clippy --lib --no-default-features --features hydrate --target wasm32-unknown-unknown \
    --target-dir target/front -- -D warnings
  echo "== browser bundle (release WASM), $(( $(date +%s) - front_started ))s after the browser build started"
  scripts/build-site.sh --front-only
  echo "== done $(( $(date +%s) - front_started ))s after the browser build started"
) > "$front_log" 2>&1 &
front=$!
# Stopped with the command when a step fails before it ends, with every process it started.
kill_tree() { local child; for child in $(pgrep -P "$1"); do kill_tree "$child"; done; kill "$1" 2>/dev/null || true; }
stop_front() { kill_tree "$front"; }
trap stop_front EXIT
echo "the browser's lints and release bundle are building beside the server's: $front_log"
# The server's lints and its tests' build are one compile: clippy's driver compiles the project's own crates, as
# `cargo clippy` has it do, but through code generation too (`cargo clippy` only checks, so the tests compiled every
# crate of the project a second time; docs/PERFORMANCE.md). Every target is built, as `--all-targets` linted them:
# library, binary, tests and benchmarks, in the test profile. The nextest run below finds them built.
export RUSTC_WORKSPACE_WRAPPER="$(rustc --print sysroot)/bin/clippy-driver" CLIPPY_ARGS="-D__CLIPPY_HACKERY__warnings"
step "clippy and the tests' build: server" cargo test --no-run --all-targets --no-default-features --features ssr
rm -f target/tmp/skipped-tests
step "unit, store, API tests" cargo nextest run --no-default-features --features ssr
if [ -s target/tmp/skipped-tests ]; then
  echo "tests skipped (a tool they need is missing; scripts/setup.sh --test installs it):"; cat target/tmp/skipped-tests
  exit 1
fi
front_ok=0; wait "$front" || front_ok=$?
step "browser lints and release bundle (built beside the above)" cat "$front_log"
[ "$front_ok" = 0 ] || { echo "the browser build failed (exit $front_ok)"; exit 1; }
# Each page's first load stays within its budget of gzip WASM (docs/PERFORMANCE.md); the table goes in the log.
step "first-load budget" python3 scripts/bundle-sizes.py --budget 400000
# The browser tests run the server binary the test build just made (the CLI tests need it, built with the same
# features): a separate `cargo build --bin` would build 43 crates again with other features (tokio's without the
# dev-dependencies' ones), about 2.5 minutes.
[ -x target/debug/latency-guard ] || step "server binary" cargo build --bin latency-guard --no-default-features --features ssr

# Browser tests: a fresh database and data folder, the demo simulator on, the debug server the tests built.
servers=()
e2e_db=""
stop_servers() {
  stop_front
  for s in "${servers[@]}"; do kill "$s" 2>/dev/null || true; wait "$s" 2>/dev/null || true; done
  [ -z "$e2e_db" ] || psql "$TEST_POSTGRES_URL" -qc "DROP DATABASE IF EXISTS $e2e_db" || true
}
trap stop_servers EXIT
# Starts the server on DATABASE_URL at port $1 with a fresh data folder and waits for it; `server_log` is its log.
serve() {
  local dir; dir=$(mktemp -d)
  export LATENCY_GUARD_DATA_DIR="$dir" LEPTOS_SITE_ADDR="127.0.0.1:$1" LATENCY_GUARD_DEMO_SIMULATOR=true \
         LATENCY_GUARD_GUARD_TICK_INTERVAL_S=0 LG_BASE_URL="http://127.0.0.1:$1" LG_BIN=target/debug/latency-guard
  server_log="$dir/server.log"
  target/debug/latency-guard serve > "$server_log" 2>&1 &
  servers+=("$!")
  for _ in $(seq 1 100); do curl -sf -o /dev/null "$LG_BASE_URL/healthz" && break; sleep 0.1; done
  curl -sf -o /dev/null "$LG_BASE_URL/healthz" || { cat "$server_log"; echo "server did not start"; exit 1; }
}
browser() {
  if ! (cd end2end && step "$1" npx playwright test "${@:2}"); then
    echo "--- server log ---"; tail -50 "$server_log"; exit 1
  fi
}
port=${LG_E2E_PORT:-3700}
e2e_dir=$(mktemp -d)
export DATABASE_URL="sqlite://$e2e_dir/e2e.db?mode=rwc"
serve "$port"
browser "browser tests (Playwright, Debian chromium)" --grep-invert @fresh-install
# A fresh install's first page walked to a finished demo run, on a database nobody has used yet.
export DATABASE_URL="sqlite://$e2e_dir/fresh.db?mode=rwc"
serve "$((port + 2))"
browser "a fresh install's first page" --grep @fresh-install
# The Guard walk-through again with the server on PostgreSQL (what replicas share), in a database of its own.
e2e_db="lg_e2e_$(date +%s)_$$"
psql "$TEST_POSTGRES_URL" -qc "CREATE DATABASE $e2e_db"
export DATABASE_URL="${TEST_POSTGRES_URL%/*}/$e2e_db"
serve "$((port + 1))"
browser "Guard walk-through on PostgreSQL" guard.spec.ts
echo "screenshots: end2end/test-results/"
printf '\nall tests passed in %ss\n' "$(( $(date +%s) - started ))"
