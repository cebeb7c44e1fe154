#!/bin/bash
# How long the export snapshot takes to fetch: starts the release server on a fresh SQLite database and a fast
# simulator, runs N iterations for each size given (default 10000 100000), then times `runs/report` (keyed JSON)
# and `runs/export` (compact form) three times each with curl, gzip accepted. Needs the release binary:
#   cargo build --release --bin latency-guard --no-default-features --features ssr
# Usage: scripts/export-fetch-timing.sh [ITERATIONS ...]
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -gt 0 ] || set -- 10000 100000
bin=target/release/latency-guard
api=http://127.0.0.1:3712/api
d=$(mktemp -d)
export DATABASE_URL="sqlite://$d/timing.db?mode=rwc" LATENCY_GUARD_DATA_DIR="$d" LEPTOS_SITE_ADDR="127.0.0.1:3712"
$bin serve > "$d/server.log" 2>&1 & srv=$!
$bin sim --port 8199 --ttft-ms 0 --itl-ms 0 --tokens 4 > /dev/null 2>&1 & sim=$!
trap 'kill $srv $sim 2>/dev/null || true' EXIT
for _ in $(seq 1 50); do curl -sf -o /dev/null "http://127.0.0.1:3712/healthz" && break; sleep 0.1; done
curl -s -c "$d/jar" -b "$d/jar" -L -o /dev/null "$($bin login-link 2>/dev/null | tail -1)"
post() { curl -s -b "$d/jar" -H 'content-type: application/json' "$api/$1" -d "$2"; }
field() { python3 -c "import sys,json; print(json.load(sys.stdin)$1)"; }
conn=$(post connectors/create '{"input":{"name":"fast","baseUrl":"http://127.0.0.1:8199/v1","model":"m"}}' | field '["id"]')
for n in "$@"; do
  run=$(post runs/start "{\"input\":{\"connectorId\":\"$conn\",\"agent\":{\"name\":\"a\",\"tokenBudget\":8},\"prompts\":[\"hi\"],\"iterations\":$n,\"mode\":{\"kind\":\"closed\",\"concurrency\":64}}}" | field '["id"]')
  while [ "$(post runs/view "{\"id\":\"$run\"}" | field '["run"]["status"]')" = running ]; do sleep 1; done
  sleep 2
  echo "== $n iterations"
  for _ in 1 2 3; do
    for ep in report export; do
      curl -s -b "$d/jar" -H 'accept-encoding: gzip' -H 'content-type: application/json' -o /dev/null \
        -w "runs/$ep: first byte %{time_starttransfer} s, total %{time_total} s, %{size_download} B\n" \
        "$api/runs/$ep" -d "{\"id\":\"$run\"}"
    done
  done
done
