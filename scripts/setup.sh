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

# wasm-bindgen-cli must match the wasm-bindgen crate in Cargo.lock exactly.
wb_version=$(awk '/^name = "wasm-bindgen"$/{getline; gsub(/[^0-9.]/,""); print; exit}' Cargo.lock)
if ! wasm-bindgen --version 2>/dev/null | grep -q " ${wb_version}\$"; then
  say "installing wasm-bindgen-cli ${wb_version} (about 9 minutes on 2 cores)"
  # Not --locked: its lock file names a webpki-roots release the registry mirror here lacks.
  cargo install wasm-bindgen-cli --version "${wb_version}" --force
fi

# npm packages: binaryen's wasm-opt (Debian's version breaks hydration) and Playwright (no browser download).
if [ ! -x end2end/node_modules/.bin/wasm-opt ] || [ end2end/package-lock.json -nt end2end/node_modules/.package-lock.json ]; then
  say "installing end2end npm packages"
  (cd end2end && npm ci --no-audit --no-fund)
fi

if [ $want_test = 1 ]; then
  llama_packages=(xllamacpp==2026.10.11549 gguf==0.19.0 "numpy>=1.26,<3")
  as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
  if ! command -v chromium >/dev/null; then
    say "installing Debian's chromium"
    as_root apt-get update -q
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium
  fi
  # The e-mail tests' SMTP server on loopback (aiosmtpd), for the python3 on PATH.
  if ! python3 -c "import aiosmtpd" 2>/dev/null; then
    say "installing aiosmtpd (PyPI) for the e-mail tests"
    python3 -m pip install --quiet aiosmtpd==1.4.6 || python3 -m pip install --quiet --break-system-packages aiosmtpd==1.4.6
  fi
  # A real llama.cpp server for the measurement tests: the HTTP server embedded in the xllamacpp wheel, and the
  # packages that write its tiny test model locally (no model is downloaded).
  if ! python3 -c "import xllamacpp, gguf, numpy" 2>/dev/null; then
    say "installing xllamacpp, gguf and numpy (PyPI) for the real llama.cpp server tests"
    python3 -m pip install --quiet "${llama_packages[@]}" || python3 -m pip install --quiet --break-system-packages "${llama_packages[@]}"
  fi
  if ! cargo nextest --version >/dev/null 2>&1; then
    say "installing cargo-nextest"
    cargo install cargo-nextest --locked
  fi
  if command -v pg_isready >/dev/null && ! pg_isready -q -h 127.0.0.1 -p 5432; then
    if command -v pg_ctlcluster >/dev/null; then
      say "starting the local PostgreSQL cluster"
      as_root pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -1)" main start || true
    fi
  fi
fi
say "ready"
