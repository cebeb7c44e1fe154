# Sourced by the timing scripts (export-fetch-timing.sh, report-page-timing.sh): starts the release server on a
# fresh SQLite database at 127.0.0.1:$1 and a fast simulator (no delays, 4 tokens) at 127.0.0.1:$2, logs in, and
# makes a connector to the simulator. Sets `bin`, `base`, `api`, `d` (the scratch folder, holding the cookie jar
# `$d/jar`), `conn`; defines `post PATH JSON`, `field PY_INDEX` and `finished_run N` (runs N iterations at 64 in
# flight and prints the run's id once it has ended). Both processes stop when the calling script exits.
bin=target/release/latency-guard
base=http://127.0.0.1:$1
api=$base/api
d=$(mktemp -d)
export DATABASE_URL="sqlite://$d/timing.db?mode=rwc" LATENCY_GUARD_DATA_DIR="$d" LEPTOS_SITE_ADDR="127.0.0.1:$1"
$bin serve > "$d/server.log" 2>&1 & srv=$!
$bin sim --port "$2" --ttft-ms 0 --itl-ms 0 --tokens 4 > /dev/null 2>&1 & sim=$!
trap 'kill $srv $sim 2>/dev/null || true' EXIT
for _ in $(seq 1 50); do curl -sf -o /dev/null "$base/healthz" && break; sleep 0.1; done
curl -s -c "$d/jar" -b "$d/jar" -L -o /dev/null "$($bin login-link 2>/dev/null | tail -1)"
post() { curl -s -b "$d/jar" -H 'content-type: application/json' "$api/$1" -d "$2"; }
field() { python3 -c "import sys,json; print(json.load(sys.stdin)$1)"; }
conn=$(post connectors/create "{\"input\":{\"name\":\"fast\",\"baseUrl\":\"http://127.0.0.1:$2/v1\",\"model\":\"m\"}}" | field '["id"]')
finished_run() {
  local run
  run=$(post runs/start "{\"input\":{\"connectorId\":\"$conn\",\"agent\":{\"name\":\"a\",\"tokenBudget\":8},\"prompts\":[\"hi\"],\"iterations\":$1,\"mode\":{\"kind\":\"closed\",\"concurrency\":64}}}" | field '["id"]')
  while [ "$(post runs/view "{\"id\":\"$run\"}" | field '["run"]["status"]')" = running ]; do sleep 1; done
  sleep 2
  echo "$run"
}
