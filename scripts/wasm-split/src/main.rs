//! Splits the browser bundle at its `#[lazy]` boundaries.
//!
//! Usage: `wasm-split INPUT.wasm PKG_DIR MAIN_OUT.wasm MAIN_JS_NAME [SECTIONS]`
//!
//! - `INPUT.wasm`: the cargo-built bundle, linked with `--emit-relocs` (the splitter reads the relocations).
//! - `PKG_DIR`: where the lazily loaded chunks, their loader `__wasm_split.______________________.js` and
//!   `__wasm_split_manifest.json` go. Leptos' `HydrationScripts` reads the manifest to preload the chunks a page
//!   needs, and the loader's name is the one Leptos' `#[lazy]` imports.
//! - `MAIN_OUT.wasm`: the first chunk, still to be bound by `wasm-bind` (its JS glue, as
//!   `wasm-bindgen --keep-lld-exports` writes it).
//! - `MAIN_JS_NAME`: the wasm-bindgen JS file the loader imports `initSync` from, relative to `PKG_DIR`.
//! - `SECTIONS`: code that at least this many page sections need goes into the first chunk (default: never).
//!
//! Why `SECTIONS`: the splitter gives every distinct set of users its own chunk, so code shared by most sections
//! ends up in dozens of small files, each compressed alone and optimised apart from its callers (`wasm-opt`
//! cannot inline across chunks). A page downloads most of them anyway; in the first chunk they cost the few pages
//! that do not need them a little and save every other page more (docs/PERFORMANCE.md, "Browser bundle"). Lazily
//! loaded functions that are not page sections (the report's export code) do not count as users: code they share
//! with the pages stays where the pages' own needs put it. The vendored splitter carries the rule
//! (`vendor/wasm_split_cli_support`, see its `PATCHED.md`).

use std::path::Path;
use std::process::ExitCode;

/// The loader's module name that Leptos' `#[lazy]` links against; it must not change.
const LINK_NAME: &str = "./__wasm_split.______________________.js";
const MANIFEST_NAME: &str = "__wasm_split_manifest.json";
/// What names a page section's split module: `src/ui/lazy_pages.rs` names each section's loader `<name>_section`,
/// and the splitter adds `_<hash>`.
const SECTION_MARK: &str = "_section_";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: wasm-split INPUT.wasm PKG_DIR MAIN_OUT.wasm MAIN_JS_NAME [SECTIONS]";
    let (input, pkg_dir, main_out, main_js, sections) = match args.as_slice() {
        [input, pkg_dir, main_out, main_js] => (input, pkg_dir, main_out, main_js, None),
        [input, pkg_dir, main_out, main_js, sections] => match sections.parse::<usize>() {
            Ok(n) if n > 0 => (input, pkg_dir, main_out, main_js, Some(n)),
            _ => {
                eprintln!("wasm-split: SECTIONS must be a whole number above 0, not {sections:?}\n{usage}");
                return ExitCode::from(2);
            }
        },
        _ => {
            eprintln!("{usage}");
            return ExitCode::from(2);
        }
    };
    match split(Path::new(input), Path::new(pkg_dir), Path::new(main_out), main_js, sections) {
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

fn split(
    input: &Path,
    pkg_dir: &Path,
    main_out: &Path,
    main_js: &str,
    sections: Option<usize>,
) -> Result<usize, Box<dyn std::error::Error>> {
    let wasm = std::fs::read(input).map_err(|error| format!("cannot read {}: {error}", input.display()))?;
    let main_module = format!("./{main_js}");
    let mut options = wasm_split_cli_support::Options::new(&wasm);
    options.output_dir = pkg_dir;
    options.main_out_path = main_out;
    options.main_module = &main_module;
    options.link_name = LINK_NAME;
    let needed_by_enough_sections = move |needed_by: &std::collections::BTreeSet<String>| {
        sections.is_some_and(|least| needed_by.iter().filter(|name| name.contains(SECTION_MARK)).count() >= least)
    };
    options.into_main = Some(&needed_by_enough_sections);
    let split = wasm_split_cli_support::transform(options).map_err(|error| format!("{error:#}"))?;
    let manifest = serde_json::to_string_pretty(&split.prefetch_map)?;
    std::fs::write(pkg_dir.join(MANIFEST_NAME), manifest)?;
    Ok(split.split_modules.len())
}
