#!/usr/bin/env bash
# Builds the site the way cargo-leptos would, without needing cargo-leptos:
#   the WASM bundle (hydrate) -> wasm-bindgen -> wasm-opt (release) -> target/site/pkg, plus CSS and public/,
#   then the server binary (ssr).
# Usage: scripts/build-site.sh [--release | --front-only]
#   --release     release WASM (size-optimised, wasm-opt -Oz) and release server
#   --front-only  release WASM and assets only (the test command runs the debug server it already built)
set -euo pipefail
cd "$(dirname "$0")/.."
name=latency-guard; crate=latency_guard; site=target/site; pkg=$site/pkg
mode=${1:-debug}
export PATH="$PWD/end2end/node_modules/.bin:$PATH"
if [ "$mode" = debug ]; then wasm_profile=dev; wasm_dir=debug; else wasm_profile=wasm-release; wasm_dir=wasm-release; fi

cargo build --lib --target wasm32-unknown-unknown --target-dir target/front \
  --no-default-features --features hydrate --profile "$wasm_profile"
rm -rf "$site"; mkdir -p "$pkg"
# Cut the bundle at its lazy routes (src/ui/lazy_pages.rs): the first chunk goes on to wasm-bindgen, the page
# chunks, their loader and the manifest the server reads to preload them go straight to the site. Code that at
# least SPLIT_SECTIONS of the page sections need stays in the first chunk (see scripts/wasm-split/src/main.rs).
cargo build --release --quiet --manifest-path scripts/wasm-split/Cargo.toml --target-dir target/tools
split_main=target/front/split-main.wasm
target/tools/release/wasm-split "target/front/wasm32-unknown-unknown/$wasm_dir/$crate.wasm" "$pkg" "$split_main" "$name.js" \
  "${SPLIT_SECTIONS:-4}"
wasm-bindgen --target web --keep-lld-exports --out-dir "$pkg" --out-name "$name" "$split_main"
# The hydration script loads /pkg/NAME.wasm.
mv "$pkg/${name}_bg.wasm" "$pkg/$name.wasm"
# Each chunk is optimised and compressed on its own, so they go through the cores side by side.
jobs=${CARGO_BUILD_JOBS:-2}
if [ "$mode" != debug ]; then
  printf '%s\0' "$pkg"/*.wasm | xargs -0 -P "$jobs" -I{} \
    wasm-opt -Oz --enable-bulk-memory --enable-nontrapping-float-to-int {} -o {} 2> >(grep -v "unknown name subsection" >&2)
fi
cp style/main.css "$pkg/$name.css"
cp -r public/. "$site/"
if [ "$mode" != debug ]; then
  # Compressed once at the best level, served as-is to browsers that accept them (the server compresses the
  # rest on the fly, at a faster level). zstd is optional: without it browsers get the gzip copy.
  printf '%s\0' "$pkg"/*.wasm "$pkg"/*.js "$pkg/$name.css" | xargs -0 -P "$jobs" -n 1 gzip -9 -k -f
  if command -v zstd >/dev/null; then
    printf '%s\0' "$pkg"/*.wasm "$pkg"/*.js "$pkg/$name.css" | xargs -0 -P "$jobs" -I{} zstd -19 -q -f {} -o {}.zst
  fi
fi

case "$mode" in
  --release) cargo build --bin "$name" --no-default-features --features ssr --release ;;
  --front-only) ;;
  *) cargo build --bin "$name" --no-default-features --features ssr ;;
esac
echo "site built in $site ($(du -b "$pkg/$name.wasm" | cut -f1) bytes of WASM$([ -f "$pkg/$name.wasm.gz" ] && echo ", $(du -b "$pkg/$name.wasm.gz" | cut -f1) gzipped")$([ -f "$pkg/$name.wasm.zst" ] && echo ", $(du -b "$pkg/$name.wasm.zst" | cut -f1) as zstd"))"
