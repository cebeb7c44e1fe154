#!/usr/bin/env python3
"""The WASM each page downloads before it is interactive, per lazily loaded section: the first chunk plus every
chunk the split manifest lists for the section, gzip -9 and zstd -19 per file as the release build leaves them.
Lazily loaded functions that are not page sections (the report's export code, `load_exports`) are listed apart:
what they add is fetched after the page is interactive; their row is the first chunk plus the function's chunks.

With `--budget BYTES`, it also fails (exit 1) when a page's first load is more than BYTES of gzip, naming each such
page and by how much: the test command runs it with the budget of docs/PERFORMANCE.md (400,000 B).

Usage: scripts/build-site.sh --front-only && scripts/bundle-sizes.py [--budget BYTES] [target/site/pkg]
"""
import json
import os
import re
import sys

args = sys.argv[1:]
budget = None
if "--budget" in args:
    at = args.index("--budget")
    budget = int(args[at + 1])
    del args[at : at + 2]
pkg = args[0] if args else "target/site/pkg"


def size(name, suffix):
    path = os.path.join(pkg, name + suffix)
    return os.path.getsize(path) if os.path.exists(path) else None


manifest = json.load(open(os.path.join(pkg, "__wasm_split_manifest.json")))
first = "latency-guard.wasm"
rows = []
for section, chunks in manifest.items():
    files = [first] + [chunk + ".wasm" for chunk in chunks]
    gz = sum(size(f, ".gz") or 0 for f in files)
    zst = [size(f, ".zst") for f in files]
    raw = sum(size(f, "") for f in files)
    rows.append((re.sub(r"_\d+$", "", section), len(files), raw, gz, None if None in zst else sum(zst)))
every = [f for f in os.listdir(pkg) if f.endswith(".wasm")]
print(f"first chunk: {size(first, '')} B raw, {size(first, '.gz')} B gzip, {size(first, '.zst')} B zstd")
print(f"all {len(every)} chunks: {sum(size(f, '.gz') for f in every)} B gzip")
print("| section (a page's first load) | files | raw | gzip | zstd |")
print("|---|---|---|---|---|")
ordered = sorted(rows, key=lambda r: (not r[0].endswith("_section"), -r[3]))
for name, files, raw, gz, zst in ordered:
    label = name if name.endswith("_section") else f"{name} (loaded later, not a first load)"
    print(f"| {label} | {files} | {raw:,} | {gz:,} | {zst if zst is None else f'{zst:,}'} |")

if budget is not None:
    over = [(name, gz) for name, _, _, gz, _ in ordered if name.endswith("_section") and gz > budget]
    for name, gz in over:
        print(f"{name}: its first load is {gz:,} B of gzip, {gz - budget:,} B over the budget of {budget:,} B "
              "(docs/PERFORMANCE.md, 'Browser bundle', says what was tried and what each section carries)")
    if over:
        sys.exit(1)
    print(f"every page's first load is within the budget of {budget:,} B of gzip")
