//! Splits the browser bundle at its `#[lazy]` boundaries.
//!
//! Usage: `wasm-split INPUT.wasm PKG_DIR MAIN_OUT.wasm MAIN_JS_NAME`
//!
//! - `INPUT.wasm`: the cargo-built bundle, linked with `--emit-relocs` (the splitter reads the relocations).
//! - `PKG_DIR`: where the lazily loaded chunks, their loader `__wasm_split.______________________.js` and
//!   `__wasm_split_manifest.json` go. Leptos' `HydrationScripts` reads the manifest to preload the chunks a page
//!   needs, and the loader's name is the one Leptos' `#[lazy]` imports.
//! - `MAIN_OUT.wasm`: the first chunk, still to be passed through `wasm-bindgen --keep-lld-exports`.
//! - `MAIN_JS_NAME`: the wasm-bindgen JS file the loader imports `initSync` from, relative to `PKG_DIR`.

use std::path::Path;
use std::process::ExitCode;

/// The loader's module name that Leptos' `#[lazy]` links against; it must not change.
const LINK_NAME: &str = "./__wasm_split.______________________.js";
const MANIFEST_NAME: &str = "__wasm_split_manifest.json";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [input, pkg_dir, main_out, main_js] = args.as_slice() else {
        eprintln!("usage: wasm-split INPUT.wasm PKG_DIR MAIN_OUT.wasm MAIN_JS_NAME");
        return ExitCode::from(2);
    };
    match split(Path::new(input), Path::new(pkg_dir), Path::new(main_out), main_js) {
        Ok(chunks) => {
            println!("wasm-split: {chunks} lazily loaded chunk(s) in {pkg_dir}");
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("wasm-split: {error:#}");
            ExitCode::FAILURE
        }
    }
}

fn split(input: &Path, pkg_dir: &Path, main_out: &Path, main_js: &str) -> Result<usize, Box<dyn std::error::Error>> {
    let wasm = std::fs::read(input).map_err(|error| format!("cannot read {}: {error}", input.display()))?;
    let main_module = format!("./{main_js}");
    let mut options = wasm_split_cli_support::Options::new(&wasm);
    options.output_dir = pkg_dir;
    options.main_out_path = main_out;
    options.main_module = &main_module;
    options.link_name = LINK_NAME;
    let split = wasm_split_cli_support::transform(options).map_err(|error| format!("{error:#}"))?;
    let manifest = serde_json::to_string_pretty(&split.prefetch_map)?;
    std::fs::write(pkg_dir.join(MANIFEST_NAME), manifest)?;
    Ok(split.split_modules.len())
}
