#!/usr/bin/env bash
# Builds the site the way cargo-leptos would, without needing cargo-leptos:
#   the WASM bundle (hydrate) -> split -> bound (wasm-bindgen's library) -> binaryen's -Oz (release) -> target/site/pkg,
#   plus CSS and public/,
#   and, beside it, the server binary (ssr).
# Usage: scripts/build-site.sh [--release | --front-only]
#   --release     release WASM (size-optimised, binaryen -Oz) and release server
#   --front-only  release WASM and assets only (the test command runs the debug server it already built)
set -euo pipefail
cd "$(dirname "$0")/.."
name=latency-guard; crate=latency_guard; site=target/site; pkg=$site/pkg
mode=${1:-debug}
if [ "$mode" = debug ]; then wasm_profile=dev; wasm_dir=debug; else wasm_profile=wasm-release; wasm_dir=wasm-release; fi

# The splitter and the binder (scripts/wasm-split) are built once per machine, like an installed tool, in a target
# directory outside the clone; cargo rebuilds them when their sources change. The binder is wasm-bindgen's own
# library at the app's version: the two lock files must name the same one.
lock_version() { awk '/^name = "'"$1"'"$/{getline; gsub(/[^0-9.]/,""); print; exit}' "$2"; }
app_wb=$(lock_version wasm-bindgen Cargo.lock); tool_wb=$(lock_version wasm-bindgen-cli-support scripts/wasm-split/Cargo.lock)
if [ "$app_wb" != "$tool_wb" ]; then
  echo "wasm-bindgen $app_wb in Cargo.lock but wasm-bindgen-cli-support $tool_wb in scripts/wasm-split/Cargo.lock:" \
       "pin both to one version" >&2
  exit 1
fi
tools=${LATENCY_GUARD_TOOLS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/latency-guard/tools}

# The bundle: compiled, cut, bound, optimised, with the stylesheet and public/ beside it in the site.
build_bundle() {
  # The tools build beside the bundle's compile, whose last crate (one unit, whole-program LTO) keeps one core.
  cargo build --release --quiet --manifest-path scripts/wasm-split/Cargo.toml --target-dir "$tools" &
  local tools_build=$!
  cargo build --lib --target wasm32-unknown-unknown --target-dir target/front \
    --no-default-features --features hydrate --profile "$wasm_profile"
  wait "$tools_build"
  rm -rf "$site"; mkdir -p "$pkg"
  bundle="target/front/wasm32-unknown-unknown/$wasm_dir/$crate.wasm"
  # The release bundle is kept (target/site-cache) until its inputs change: the compiled WASM (cargo leaves it as it
  # is when no source changed), the tools that cut, bind and optimise it, and this script. `start.sh` after the test
  # command, or a second start, then skips the minute of splitting and optimising.
  cache=target/site-cache
  inputs=$( { sha256sum "$bundle" "$tools"/release/wasm-split "$tools"/release/wasm-bind scripts/wasm-opt.mjs scripts/build-site.sh;
              echo "sections ${SPLIT_SECTIONS:-4}"; } | sha256sum | cut -d' ' -f1)
  jobs=${CARGO_BUILD_JOBS:-2}
  if [ "$mode" != debug ] && [ -f "$cache/inputs" ] && [ "$(cat "$cache/inputs")" = "$inputs" ]; then
    echo "the release bundle's inputs are unchanged: reusing $cache"
    cp -r "$cache/pkg/." "$pkg/"
  else
    # Cut the bundle at its lazy routes (src/ui/lazy_pages.rs): the first chunk goes on to wasm-bindgen, the page
    # chunks, their loader and the manifest the server reads to preload them go straight to the site. Code that at
    # least SPLIT_SECTIONS of the page sections need stays in the first chunk (see scripts/wasm-split/src/main.rs).
    split_main=target/front/split-main.wasm
    "$tools"/release/wasm-split "$bundle" "$pkg" "$split_main" "$name.js" "${SPLIT_SECTIONS:-4}"
    "$tools"/release/wasm-bind "$split_main" "$pkg" "$name"
    # The hydration script loads /pkg/NAME.wasm.
    mv "$pkg/${name}_bg.wasm" "$pkg/$name.wasm"
    if [ "$mode" != debug ]; then
      # Each chunk is optimised and compressed on its own: binaryen (npm's, compiled to WASM; Debian's breaks
      # hydration) in one long-lived worker per core (scripts/wasm-opt.mjs says why). The compressed copies are made
      # once at the best level and served as they are to browsers that accept them (the server compresses the rest
      # on the fly, at a faster level). zstd is optional: without it browsers get the gzip copy.
      node scripts/wasm-opt.mjs --jobs "$jobs" "$pkg"/*.wasm 2> >(grep -v "unknown name subsection" >&2)
      printf '%s\0' "$pkg"/*.wasm "$pkg"/*.js | xargs -0 -P "$jobs" -n 1 gzip -9 -k -f
      if command -v zstd >/dev/null; then
        printf '%s\0' "$pkg"/*.wasm "$pkg"/*.js | xargs -0 -P "$jobs" -I{} zstd -19 -q -f {} -o {}.zst
      fi
      rm -rf "$cache"; mkdir -p "$cache"; cp -r "$pkg" "$cache/pkg"; echo "$inputs" > "$cache/inputs"
    fi
  fi
  cp style/main.css "$pkg/$name.css"
  cp -r public/. "$site/"
  if [ "$mode" != debug ]; then
    gzip -9 -k -f "$pkg/$name.css"
    if command -v zstd >/dev/null; then zstd -19 -q -f "$pkg/$name.css" -o "$pkg/$name.css.zst"; fi
  fi
}

if [ "$mode" = --front-only ]; then
  build_bundle
else
  # The server builds beside the bundle in the idle scheduling class (`chrt --idle`): the bundle, whose tail is
  # serial (one whole-program LTO unit, then binaryen), gets the cores it can use, and the server's build takes every
  # core the bundle leaves, so neither ends with a core idle for long (docs/PERFORMANCE.md, "Build and test times").
  kill_tree() { local child; for child in $(pgrep -P "$1"); do kill_tree "$child"; done; kill "$1" 2>/dev/null || true; }
  if [ "$mode" = --release ]; then release=(--release); else release=(); fi
  # The server's build and its prefixed output in a subshell of their own: a failed bundle stops it (the trap), and
  # a failed server build fails the script once the bundle is done.
  ( (
    chrt --idle -p 0 "$BASHPID" 2>/dev/null || renice -n 19 -p "$BASHPID" >/dev/null
    cargo build --bin "$name" --no-default-features --features ssr "${release[@]}"
  ) 2>&1 | sed -u 's/^/[server] /' ) &
  server_build=$!
  trap 'kill_tree "$server_build"' EXIT
  build_bundle 2>&1 | sed -u 's/^/[bundle] /'
  wait "$server_build"
  trap - EXIT
fi
echo "site built in $site ($(du -b "$pkg/$name.wasm" | cut -f1) bytes of WASM$([ -f "$pkg/$name.wasm.gz" ] && echo ", $(du -b "$pkg/$name.wasm.gz" | cut -f1) gzipped")$([ -f "$pkg/$name.wasm.zst" ] && echo ", $(du -b "$pkg/$name.wasm.zst" | cut -f1) as zstd"))"
