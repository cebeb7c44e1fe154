#!/usr/bin/env bash
# Installs what this machine lacks to build (and with --test, to test) latency-guard; skips what is there.
# Nothing here downloads a prebuilt binary, browser or toolchain: cargo, npm and apt packages only.
set -euo pipefail
cd "$(dirname "$0")/.."
want_test=0; [ "${1:-}" = "--test" ] && want_test=1
say() { printf '\033[1m[setup]\033[0m %s\n' "$*"; }

if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  say "adding the wasm32-unknown-unknown target"
  rustup target add wasm32-unknown-unknown
fi

for component in rustfmt clippy; do
  if ! rustup component list --installed | grep -q "^${component}"; then
    say "adding the ${component} component"
    rustup component add "${component}"
  fi
done

# wasm-bindgen's JS glue is written by its library, built once per machine beside the bundle splitter by
# scripts/build-site.sh (scripts/wasm-split): no `cargo install wasm-bindgen-cli` (about 6 minutes on 2 cores).

# npm packages: binaryen, which optimises the release WASM (Debian's version breaks hydration), and Playwright (no
# browser download).
if [ ! -x end2end/node_modules/.bin/wasm-opt ] || [ end2end/package-lock.json -nt end2end/node_modules/.package-lock.json ]; then
  say "installing end2end npm packages"
  (cd end2end && npm ci --no-audit --no-fund)
fi

if [ $want_test = 1 ]; then
  as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
  apt_updated=0
  apt_install() {
    if [ $apt_updated = 0 ]; then as_root apt-get update -q; apt_updated=1; fi
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$@"
  }
  if ! command -v chromium >/dev/null; then
    say "installing Debian's chromium"
    apt_install chromium
  fi

  # Python for the tests' loopback servers, in a virtual environment of the project's own (target/test-python),
  # so the machine's Python is left as it is: aiosmtpd (an SMTP server for the e-mail tests) and xllamacpp (a real
  # llama.cpp server, `llama-server` embedded in the wheel) with gguf + numpy to write its tiny model locally
  # (nothing is downloaded from a model hub), and eth-account, which signs wallet-login messages in the tests as
  # a wallet would (an implementation independent of the Rust crate that verifies them). The tests find it
  # through LG_PYTHON, which scripts/test.sh sets.
  venv=target/test-python
  python_packages=(aiosmtpd==1.4.6 xllamacpp==2026.10.11549 gguf==0.19.0 "numpy>=1.26,<3" eth-account==0.14.0)
  if ! "$venv/bin/python" -c "import aiosmtpd, xllamacpp, gguf, numpy, eth_account" 2>/dev/null; then
    command -v python3 >/dev/null || { say "installing Debian's python3"; apt_install python3 python3-venv; }
    if ! python3 -m venv --clear "$venv" 2>/dev/null; then
      say "installing Debian's python3-venv"
      apt_install python3-venv
      python3 -m venv --clear "$venv"
    fi
    say "installing ${python_packages[*]} (PyPI) into $venv"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "${python_packages[@]}"
  fi

  if ! cargo nextest --version >/dev/null 2>&1; then
    say "installing cargo-nextest"
    cargo install cargo-nextest --locked
  fi

  # PostgreSQL for the store tests: TEST_POSTGRES_URL when given; else postgres@127.0.0.1:5432/test when that
  # answers; else a local server from Debian's packages (installed, its cluster created and started when
  # missing) with a role of the tests' own. The URL the tests use is left in target/test-postgres-url.
  pg_url=${TEST_POSTGRES_URL:-postgres://postgres@127.0.0.1:5432/test}
  pg_own_url=postgres://latency_guard_test:latency_guard_test@127.0.0.1:5432/test
  pg_answers() { command -v psql >/dev/null && psql "$1" -tAc 'SELECT 1' >/dev/null 2>&1; }
  if [ -z "${TEST_POSTGRES_URL:-}" ] && ! pg_answers "$pg_url" && pg_answers "$pg_own_url"; then
    pg_url=$pg_own_url
  fi
  if ! pg_answers "$pg_url"; then
    if [ -n "${TEST_POSTGRES_URL:-}" ]; then
      echo "TEST_POSTGRES_URL does not answer (psql \"\$TEST_POSTGRES_URL\" -c 'SELECT 1' failed)" >&2
      exit 1
    fi
    if ! command -v pg_ctlcluster >/dev/null; then
      say "installing Debian's PostgreSQL for the store tests"
      apt_install postgresql
    fi
    pg_version=$(ls /usr/lib/postgresql | sort -V | tail -1)
    if ! pg_lsclusters -h | awk -v v="$pg_version" '$1 == v && $2 == "main" { found = 1 } END { exit !found }'; then
      say "creating the PostgreSQL $pg_version cluster"
      as_root pg_createcluster "$pg_version" main
    fi
    if ! pg_isready -q -h 127.0.0.1 -p 5432; then
      say "starting PostgreSQL $pg_version"
      as_root pg_ctlcluster --skip-systemctl-redirect "$pg_version" main start
      for _ in $(seq 1 100); do pg_isready -q -h 127.0.0.1 -p 5432 && break; sleep 0.1; done
    fi
    if ! pg_answers "$pg_url"; then
      # The tests' own role (a throw-away local password): it creates and drops one database per test.
      say "creating the PostgreSQL role latency_guard_test and the database test"
      as_postgres() { (cd / && as_root runuser -u postgres -- "$@"); }
      as_postgres psql -q -v ON_ERROR_STOP=1 -p 5432 -c "DO \$\$ BEGIN
        IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'latency_guard_test') THEN
          CREATE ROLE latency_guard_test LOGIN CREATEDB PASSWORD 'latency_guard_test';
        END IF; END \$\$;"
      as_postgres psql -p 5432 -tAc "SELECT 1 FROM pg_database WHERE datname = 'test'" | grep -q 1 ||
        as_postgres createdb -p 5432 -O latency_guard_test test
      pg_url=$pg_own_url
      pg_answers "$pg_url" || { echo "PostgreSQL at $pg_url does not answer" >&2; exit 1; }
    fi
  fi
  mkdir -p target
  printf '%s\n' "$pg_url" > target/test-postgres-url
fi
say "ready"
