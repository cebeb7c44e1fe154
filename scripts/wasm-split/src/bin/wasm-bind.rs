//! Writes the JS glue for the browser bundle's first chunk: what `wasm-bindgen --target web --keep-lld-exports
//! --out-dir PKG_DIR --out-name NAME MAIN.wasm` does, through the same library the `wasm-bindgen` command is a
//! shell over (`wasm-bindgen-cli-support`, pinned to the app's `wasm-bindgen` version). Built here, beside the
//! splitter, it costs the set-up a small library's build instead of `cargo install wasm-bindgen-cli` (202 crates
//! with its test runner's web server and HTTP client, about 6 minutes on 2 cores).
//!
//! Usage: `wasm-bind MAIN.wasm PKG_DIR NAME`

use std::process::ExitCode;

use wasm_bindgen_cli_support::Bindgen;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [input, pkg_dir, name] = args.as_slice() else {
        eprintln!("usage: wasm-bind MAIN.wasm PKG_DIR NAME");
        return ExitCode::from(2);
    };
    let mut bindgen = Bindgen::new();
    // The command's defaults where the library's differ (TypeScript declarations written, the default module path
    // kept), so the glue is the same bytes `wasm-bindgen` writes.
    let bound = bindgen.input_path(input).web(true).map(|b| {
        b.keep_lld_exports(true).typescript(true).omit_default_module_path(false).out_name(name);
    });
    match bound.and_then(|()| bindgen.generate(pkg_dir)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("wasm-bind: {e:#}");
            ExitCode::FAILURE
        }
    }
}
