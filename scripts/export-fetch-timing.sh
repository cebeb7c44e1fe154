#!/bin/bash
# How long the export snapshot takes to fetch: starts the release server on a fresh SQLite database and a fast
# simulator, runs N iterations for each size given (default 10000 100000), then times `runs/report` (keyed JSON)
# and `runs/export` (compact form) three times each with curl, gzip accepted. Needs the release binary:
#   cargo build --release --bin latency-guard --no-default-features --features ssr
# Usage: scripts/export-fetch-timing.sh [ITERATIONS ...]
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -gt 0 ] || set -- 10000 100000
# shellcheck source=scripts/timing-server.sh
source scripts/timing-server.sh 3712 8199
for n in "$@"; do
  run=$(finished_run "$n")
  echo "== $n iterations"
  for _ in 1 2 3; do
    for ep in report export; do
      curl -s -b "$d/jar" -H 'accept-encoding: gzip' -H 'content-type: application/json' -o /dev/null \
        -w "runs/$ep: first byte %{time_starttransfer} s, total %{time_total} s, %{size_download} B\n" \
        "$api/runs/$ep" -d "{\"id\":\"$run\"}"
    done
  done
done
