//! The layering `docs/ARCHITECTURE.md` describes, checked on the source text: modules below the HTTP edge know
//! neither axum nor the app state, and no module imports, directly or around a loop, one that imports it back.
//! A violation names the file (or the loop) so the fix is obvious.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a failing test should panic loudly")]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Modules below the HTTP edge: the domain and the shared pure layer. (`sim` is its own small HTTP server and
/// `api`/`ui`/`server` are the layers that serve requests.)
const BELOW_THE_EDGE: &[&str] = &[
    "auth",
    "charts",
    "clock",
    "config",
    "engine",
    "error",
    "export",
    "fragments",
    "guard",
    "jobs",
    "model",
    "notify",
    "outbound",
    "report",
    "runs",
    "rate_limit",
    "secrets",
    "speclab",
    "stats",
    "store",
    "targets",
    "wire",
];

/// What a module below the edge must not name.
const EDGE_ONLY: &[&str] = &["axum", "crate::state", "crate::server", "crate::api", "crate::ui"];

/// The layers of `docs/ARCHITECTURE.md` in full, bottom first: a module imports only modules of layers below its
/// own. A new top-level module needs a place here.
const LAYERS: &[&[&str]] = &[
    &["wire", "clock", "outbound", "sim", "telemetry"],
    &["model"],
    &["stats", "error", "rate_limit"],
    &["charts", "config", "engine"],
    &["report", "secrets", "workload"],
    &["export", "store"],
    &["fragments", "jobs", "auth", "targets", "notify"],
    &["speclab"],
    &["runs"],
    &["capacity"],
    &["guard"],
    &["state"],
    &["api"],
    &["ui"],
    &["server"],
    &["cli"],
];

/// A source file: its module path (`["guard", "tick"]`) and its text without the unit-test module.
struct Source {
    module: Vec<String>,
    path: PathBuf,
    code: String,
}

fn sources() -> Vec<Source> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut found = Vec::new();
    let mut pending = vec![root.clone()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let relative = path.strip_prefix(&root).unwrap().with_extension("");
                let mut module: Vec<String> = relative.iter().map(|part| part.to_string_lossy().into_owned()).collect();
                if module.last().is_some_and(|m| m == "mod" || m == "lib" || m == "main") {
                    module.pop();
                }
                let text = std::fs::read_to_string(&path).unwrap();
                // Unit tests may reach across layers to build fixtures; the layering is about the shipped code.
                let code = match text.find("#[cfg(test)]\nmod tests") {
                    Some(at) => text[..at].to_string(),
                    None => text,
                };
                found.push(Source { module, path, code });
            }
        }
    }
    found
}

/// The module paths `code` names: `crate::a::b` as `[a, b]`, `super::x` resolved against `module`.
fn references(module: &[String], code: &str) -> Vec<Vec<String>> {
    let mut refs = Vec::new();
    for (prefix, base) in [("crate::", Vec::new()), ("super::", module[..module.len().saturating_sub(1)].to_vec())] {
        for (at, _) in code.match_indices(prefix) {
            if at > 0 && code[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_') {
                continue;
            }
            let mut path = Vec::new();
            for segment in code[at + prefix.len()..].split("::").take(3) {
                let name: String =
                    segment.chars().take_while(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '_').collect();
                if name.is_empty() {
                    break;
                }
                let whole = name.len() == segment.len();
                path.push(name);
                if !whole {
                    break;
                }
            }
            if !path.is_empty() {
                refs.push(base.iter().cloned().chain(path).collect());
            }
        }
    }
    refs
}

/// Edges between modules at `depth` (1: top-level modules; 2: the submodules inside each top-level module).
fn graph(sources: &[Source], depth: usize) -> BTreeMap<String, BTreeSet<String>> {
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for source in sources.iter().filter(|s| s.module.len() >= depth) {
        let from = &source.module[..depth];
        for target in references(&source.module, &source.code) {
            if target.len() < depth || target[..depth - 1] != from[..depth - 1] || target[..depth] == *from {
                continue;
            }
            edges.entry(from.join("::")).or_default().insert(target[..depth].join("::"));
        }
    }
    edges
}

/// One import loop, as `a -> b -> a`, if the graph has any.
fn find_loop(edges: &BTreeMap<String, BTreeSet<String>>) -> Option<String> {
    fn visit(
        node: &str,
        edges: &BTreeMap<String, BTreeSet<String>>,
        trail: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<String> {
        if let Some(start) = trail.iter().position(|n| n == node) {
            let mut cycle = trail[start..].to_vec();
            cycle.push(node.to_string());
            return Some(cycle.join(" -> "));
        }
        if done.contains(node) {
            return None;
        }
        trail.push(node.to_string());
        for next in edges.get(node).into_iter().flatten() {
            if let Some(found) = visit(next, edges, trail, done) {
                return Some(found);
            }
        }
        trail.pop();
        done.insert(node.to_string());
        None
    }
    let mut done = BTreeSet::new();
    edges.keys().find_map(|node| visit(node, edges, &mut Vec::new(), &mut done))
}

#[test]
fn modules_below_the_http_edge_know_neither_axum_nor_the_app_state() {
    let offenders: Vec<String> = sources()
        .iter()
        .filter(|s| s.module.first().is_some_and(|top| BELOW_THE_EDGE.contains(&top.as_str())))
        .flat_map(|s| {
            EDGE_ONLY
                .iter()
                .filter(|name| s.code.contains(*name))
                .map(|name| format!("{} names {name}", s.path.display()))
        })
        .collect();
    assert!(offenders.is_empty(), "below the HTTP edge:\n{}", offenders.join("\n"));
}

#[test]
fn no_module_imports_one_that_imports_it_back() {
    let sources = sources();
    for depth in [1, 2, 3] {
        let edges = graph(&sources, depth);
        assert!(edges.len() > 3 || depth > 1, "the scan found the modules at all: {edges:?}");
        if let Some(cycle) = find_loop(&edges) {
            panic!("an import loop between modules: {cycle}");
        }
    }
}

#[test]
fn the_loop_finder_finds_a_loop() {
    let code = |module: &[&str], text: &str| Source {
        module: module.iter().map(|m| (*m).to_string()).collect(),
        path: PathBuf::from(module.join("/")),
        code: text.to_string(),
    };
    let looped = [
        code(&["runs", "manager"], "use crate::server::AppState;"),
        code(&["server", "app"], "use crate::runs::RunManager;"),
        code(&["sim", "stream"], "use super::completion::Plan;"),
        code(&["sim", "completion"], "use super::stream::stream_response;"),
    ];
    assert_eq!(find_loop(&graph(&looped, 1)).as_deref(), Some("runs -> server -> runs"));
    assert_eq!(find_loop(&graph(&looped, 2)).as_deref(), Some("sim::completion -> sim::stream -> sim::completion"));
    assert_eq!(find_loop(&graph(&looped[..1], 1)), None);
}

/// The paths the module list of `docs/ARCHITECTURE.md` names (`src/model`, `src/lib.rs`, `tests/`, …): the first
/// word of each line of the code block under "Where each module lives".
fn mapped_paths(doc: &str) -> BTreeSet<String> {
    let section = doc.split("## Where each module lives").nth(1).expect("the map has its module list");
    let block = section.split("```").nth(1).expect("the module list is a code block");
    block
        .lines()
        .filter(|line| !line.starts_with(' '))
        .filter_map(|line| line.split_whitespace().next())
        .map(|path| path.trim_end_matches('/').to_string())
        .collect()
}

#[test]
fn the_map_names_every_module_of_src_and_nothing_that_is_not_there() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let doc = std::fs::read_to_string(root.join("docs/ARCHITECTURE.md")).unwrap();
    let mapped = mapped_paths(&doc);
    let present: BTreeSet<String> = std::fs::read_dir(root.join("src"))
        .unwrap()
        .map(|entry| format!("src/{}", entry.unwrap().file_name().to_string_lossy()))
        .collect();
    let in_src: BTreeSet<String> = mapped.iter().filter(|p| p.starts_with("src/")).cloned().collect();
    let unmapped: Vec<&String> = present.difference(&in_src).collect();
    let gone: Vec<&String> = in_src.difference(&present).collect();
    assert!(unmapped.is_empty(), "docs/ARCHITECTURE.md's module list does not name {unmapped:?}");
    assert!(gone.is_empty(), "docs/ARCHITECTURE.md's module list names {gone:?}, which src/ does not hold");
    for folder in mapped.iter().filter(|p| !p.starts_with("src/")) {
        assert!(root.join(folder).is_dir(), "docs/ARCHITECTURE.md's module list names {folder}/, which is not there");
    }
}

#[test]
fn the_map_reader_sees_names_and_skips_continuation_lines() {
    let doc = "x\n## Where each module lives\n\n```\nsrc/a      one\n           still a\nsrc/b.rs   two\ntests/     three\n```\n";
    let expected: BTreeSet<String> = ["src/a", "src/b.rs", "tests"].iter().map(|s| s.to_string()).collect();
    assert_eq!(mapped_paths(doc), expected);
}

/// The top-level modules without a layer, and the imports that do not point down the layers (`from -> to`).
fn layer_violations(sources: &[Source]) -> (Vec<String>, Vec<String>) {
    let layer_of = |module: &str| LAYERS.iter().position(|layer| layer.contains(&module));
    let modules: BTreeSet<String> = sources.iter().filter_map(|s| s.module.first().cloned()).collect();
    let unplaced = modules.iter().filter(|m| layer_of(m).is_none()).cloned().collect();
    let mut upward = Vec::new();
    for (from, targets) in graph(sources, 1) {
        let Some(own) = layer_of(&from) else { continue };
        for to in targets.iter().filter(|t| layer_of(t).is_some_and(|theirs| theirs >= own)) {
            upward.push(format!("{from} -> {to}"));
        }
    }
    (unplaced, upward)
}

#[test]
fn every_import_points_down_the_written_layers_and_every_module_has_one() {
    let (unplaced, upward) = layer_violations(&sources());
    assert!(unplaced.is_empty(), "top-level modules without a layer in LAYERS: {unplaced:?}");
    assert!(upward.is_empty(), "imports that do not point down the layers (docs/ARCHITECTURE.md): {upward:?}");
}

#[test]
fn the_layer_check_finds_an_upward_import_and_an_unplaced_module() {
    let code = |module: &[&str], text: &str| Source {
        module: module.iter().map(|m| (*m).to_string()).collect(),
        path: PathBuf::from(module.join("/")),
        code: text.to_string(),
    };
    let tree = [
        code(&["model", "run"], "use crate::store::Store;"),
        code(&["store", "runs"], "use crate::model::RunId;"),
        code(&["novel"], "use crate::model::RunId;"),
        code(&["engine", "measure"], "use crate::outbound::Reach;"),
        code(&["outbound"], ""),
    ];
    let (unplaced, upward) = layer_violations(&tree);
    assert_eq!(unplaced, ["novel"]);
    assert_eq!(upward, ["model -> store"], "store -> model and engine -> outbound point down");
}
