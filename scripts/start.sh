#!/usr/bin/env bash
# Quick start: set up, build the release site and server, and run latency-guard on SQLite (./data/).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_BUILD_JOBS=${CARGO_BUILD_JOBS:-2}
scripts/setup.sh
scripts/build-site.sh --release
exec target/release/latency-guard serve "$@"
