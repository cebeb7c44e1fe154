#!/bin/bash
# Time to interactive of a report page in Debian's chromium, for runs of each size given (default 10000 100000):
# starts the release server on a fresh SQLite database and a fast simulator, runs N iterations at 64 in flight,
# then opens the report three times in a fresh browser context (end2end/bench/report-page-timing.mjs). Needs the
# release site and binary:  scripts/build-site.sh --release
# Usage: scripts/report-page-timing.sh [ITERATIONS ...]
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -gt 0 ] || set -- 10000 100000
# shellcheck source=scripts/timing-server.sh
source scripts/timing-server.sh 3713 8198
# The session cookie as a Playwright storage state.
python3 - "$d/jar" "$d/state.json" <<'PY'
import json, sys
cookies = []
for line in open(sys.argv[1]):
    if line.startswith("#HttpOnly_"):
        line = line[len("#HttpOnly_"):]
    elif line.startswith("#") or not line.strip():
        continue
    domain, _, path, secure, expires, name, value = line.rstrip("\n").split("\t")
    cookies.append({"name": name, "value": value, "domain": domain, "path": path, "expires": -1,
                    "httpOnly": True, "secure": secure == "TRUE", "sameSite": "Lax"})
json.dump({"cookies": cookies, "origins": []}, open(sys.argv[2], "w"))
PY
for n in "$@"; do
  run=$(finished_run "$n")
  echo "== report page of $n iterations"
  (cd end2end && node bench/report-page-timing.mjs "$base" "$d/state.json" "$run" 3)
done
