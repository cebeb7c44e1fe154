//! The house `docs/ARCHITECTURE.md` describes, checked on the source text along its two axes. The kernel's layers:
//! shared pure modules at the bottom, the domain above them, the edge (`state`, `api`, the UI kit) and the shell
//! (`ui`'s router and pages, `server`, `cli`) on top. The features (`guard`, …), each one folder with the same inner
//! layers (model < charts < report < judge < store < notify < service < fragments < api < ui), interleaved with the kernel's
//! edge: a feature's service is below `state`, its api above `api`'s shared context, its pages above the UI kit.
//! Every import points down that order; a feature imports another only when it declares it; nothing below the edge
//! names axum or the app state; SQL is written only in store files; and no module imports, directly or around a
//! loop, one that imports it back. A violation names the file, the import or the loop, so the fix is obvious.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a failing test should panic loudly")]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A feature (a folder of `src/` with the inner layers below) and the features it may import.
type Feature = (&'static str, &'static [&'static str]);

/// The features. A feature may import a declared one's layers up to its own (guard's service may call runs'
/// service); the declarations may not loop.
const FEATURES: &[Feature] = &[
    ("account", &[]),
    ("capacity", &["runs", "workload"]),
    ("guard", &["runs"]),
    ("home", &["runs", "guard"]),
    ("lab", &["runs", "workload"]),
    ("runs", &["workload"]),
    ("workload", &[]),
];

/// Every node of the house, bottom first: a node imports only nodes of lower ranks. A kernel node is a top-level
/// module (the UI's kit, `ui::kit`, is apart from its router and pages, `ui`); `*::layer` is that layer of every
/// feature. A new top-level module or feature layer needs a place here.
const ORDER: &[&[&str]] = &[
    &["wire", "clock"],
    &["outbound", "sim", "telemetry"],
    &["model"],
    &["stats", "error", "rate_limit"],
    &["charts", "config", "engine"],
    &["report", "secrets"],
    &["export", "store"],
    &["fragments", "jobs", "auth", "targets"],
    &["probe"],
    &["*::model"],
    &["*::charts"],
    &["*::report"],
    &["*::judge"],
    &["*::store"],
    &["*::notify"],
    &["*::service"],
    &["state"],
    &["*::fragments"],
    &["api"],
    &["*::api"],
    &["ui::kit"],
    &["*::ui"],
    &["ui"],
    &["server"],
    &["cli"],
];

/// The nodes that serve requests or are their own server, which the edge rule leaves alone although they rank
/// below `api`: `state` is what the edge is made of, and `sim` is a small HTTP server of its own.
const EDGE_ITSELF: &[&str] = &["state", "sim"];

/// What a node below the HTTP edge must not name.
const EDGE_ONLY: &[&str] = &["axum", "crate::state", "crate::server", "crate::api", "crate::ui"];

/// The folders a file that writes SQL may be in: the kernel's store and each feature's own.
const SQL_HOMES: &[&str] = &["store", "*::store"];

/// The submodules of `ui` that are its router and pages; the rest (components, hooks, the wallet, the report's
/// source) is the kit that every page uses.
const UI_SHELL: &[&str] = &["pages", "lazy_pages"];

fn is_feature(features: &[Feature], name: &str) -> bool {
    features.iter().any(|(feature, _)| *feature == name)
}

/// The node a module path belongs to: `guard::judge` for `["guard", "judge", "decide"]`, `ui::kit` for
/// `["ui", "components", "layout"]`, `store` for `["store", "runs"]`.
fn node(module: &[String]) -> String {
    node_among(FEATURES, module)
}

/// [`node`] with `features` as the features.
fn node_among(features: &[Feature], module: &[String]) -> String {
    match module {
        [feature, layer, ..] if is_feature(features, feature) => format!("{feature}::{layer}"),
        [ui, part, ..] if ui == "ui" && !UI_SHELL.contains(&part.as_str()) => "ui::kit".to_string(),
        [top, ..] => top.clone(),
        [] => String::new(),
    }
}

/// A node's rank in [`ORDER`], if it has one.
fn rank(features: &[Feature], node: &str) -> Option<usize> {
    let general = match node.split_once("::") {
        Some((feature, layer)) if is_feature(features, feature) => format!("*::{layer}"),
        // A feature's `mod.rs` only declares its layers: it stands with its pages, at the top of the feature.
        None if is_feature(features, node) => "*::ui".to_string(),
        _ => node.to_string(),
    };
    ORDER.iter().position(|nodes| nodes.contains(&general.as_str()))
}

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

/// The module paths `code` names: `crate::a::b` as `[a, b]`, `super::x` resolved against `module`, and each
/// branch of a group (`use super::{a, b::C}` names `a` and `b`).
fn references(module: &[String], code: &str) -> Vec<Vec<String>> {
    let mut refs = Vec::new();
    for (prefix, base) in [("crate::", Vec::new()), ("super::", module[..module.len().saturating_sub(1)].to_vec())] {
        for (at, _) in code.match_indices(prefix) {
            if at > 0 && code[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_' || c == ':') {
                continue;
            }
            for path in use_tree(&code[at + prefix.len()..]) {
                if !path.is_empty() {
                    refs.push(base.iter().cloned().chain(path).collect());
                }
            }
        }
    }
    refs
}

/// The module paths (up to three segments, lower-case names only) at the start of `text`, a path or a use tree:
/// `a::b::C` gives `[a, b]`; `a::{b, c::D}` gives `[a, b]` and `[a, c]`.
fn use_tree(text: &str) -> Vec<Vec<String>> {
    let mut path = Vec::new();
    let mut rest = text;
    loop {
        if let Some(group) = rest.strip_prefix('{') {
            let Some(inner) = group_inside(group) else { return vec![path] };
            let branches: Vec<Vec<String>> = split_top_level(inner)
                .into_iter()
                .flat_map(|branch| use_tree(branch.trim_start()))
                .map(|branch| path.iter().cloned().chain(branch).take(3).collect())
                .collect();
            return if branches.is_empty() { vec![path] } else { branches };
        }
        let name: String =
            rest.chars().take_while(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '_').collect();
        let after = &rest[name.len()..];
        if name.is_empty() || name == "self" {
            return vec![path];
        }
        path.push(name);
        match after.strip_prefix("::") {
            Some(next) if path.len() < 3 => rest = next,
            _ => return vec![path],
        }
    }
}

/// The text inside a group whose `{` was just read, up to its matching `}`.
fn group_inside(text: &str) -> Option<&str> {
    let mut depth = 1;
    for (at, c) in text.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(&text[..at]);
                }
            }
            _ => {}
        }
    }
    None
}

/// `a, b::{c, d}, e` split at its top-level commas.
fn split_top_level(text: &str) -> Vec<&str> {
    let (mut parts, mut depth, mut start) = (Vec::new(), 0, 0);
    for (at, c) in text.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&text[start..at]);
                start = at + 1;
            }
            _ => {}
        }
    }
    parts.push(&text[start..]);
    parts.into_iter().filter(|p| !p.trim().is_empty()).collect()
}

/// Edges between the house's nodes (features' layers, the kernel's modules), as [`node`] names them.
fn node_graph(features: &[Feature], sources: &[Source]) -> BTreeMap<String, BTreeSet<String>> {
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for source in sources.iter().filter(|s| !s.module.is_empty()) {
        let from = node_among(features, &source.module);
        for target in references(&source.module, &source.code) {
            let to = node_among(features, &target);
            if to != from && !to.is_empty() {
                edges.entry(from.clone()).or_default().insert(to);
            }
        }
    }
    edges
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
    let edge = rank(FEATURES, "api").unwrap();
    let offenders: Vec<String> = sources()
        .iter()
        .filter(|s| {
            let node = node(&s.module);
            rank(FEATURES, &node).is_some_and(|r| r < edge) && !EDGE_ITSELF.contains(&node.as_str())
        })
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
fn sql_is_written_only_in_store_files() {
    let general = |node: &str| match node.split_once("::") {
        Some((feature, layer)) if is_feature(FEATURES, feature) => format!("*::{layer}"),
        _ => node.to_string(),
    };
    let offenders: Vec<String> = sources()
        .iter()
        .filter(|s| s.code.contains("sqlx::query") && !SQL_HOMES.contains(&general(&node(&s.module)).as_str()))
        .map(|s| s.path.display().to_string())
        .collect();
    assert!(offenders.is_empty(), "SQL outside the store's files: {offenders:?}");
}

#[test]
fn no_module_imports_one_that_imports_it_back() {
    let sources = sources();
    let nodes = node_graph(FEATURES, &sources);
    assert!(nodes.len() > 3, "the scan found the modules at all: {nodes:?}");
    assert!(nodes.keys().any(|n| n == "guard::service"), "the scan sees the features' layers: {nodes:?}");
    if let Some(cycle) = find_loop(&nodes) {
        panic!("an import loop between the house's nodes: {cycle}");
    }
    for depth in [2, 3] {
        if let Some(cycle) = find_loop(&graph(&sources, depth)) {
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
        code(&["server", "app"], "use crate::runs::service::RunManager;"),
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

/// The nodes without a rank in [`ORDER`], and the imports that break the order or reach a feature not declared
/// (`from -> to`).
fn layer_violations(features: &[Feature], sources: &[Source]) -> (Vec<String>, Vec<String>) {
    let edges = node_graph(features, sources);
    let nodes: BTreeSet<String> =
        sources.iter().filter(|s| !s.module.is_empty()).map(|s| node_among(features, &s.module)).collect();
    let unplaced = nodes.iter().filter(|n| rank(features, n).is_none()).cloned().collect();
    let feature_of = |node: &str| node.split_once("::").map(|(f, _)| f.to_string()).filter(|f| is_feature(features, f));
    let mut wrong = Vec::new();
    for (from, targets) in &edges {
        let Some(own) = rank(features, from) else { continue };
        for to in targets {
            let declared = match (feature_of(from), feature_of(to)) {
                (Some(a), Some(b)) if a != b => {
                    Some(features.iter().any(|(f, uses)| *f == a && uses.contains(&b.as_str())))
                }
                _ => None,
            };
            // Within a feature and in the kernel an import points strictly down; into a declared feature, down or
            // level (a service calls the service it builds on).
            let upward = rank(features, to).is_some_and(|theirs| match declared {
                Some(true) => theirs > own,
                _ => theirs >= own,
            });
            let undeclared = declared == Some(false);
            if upward || undeclared {
                wrong.push(format!("{from} -> {to}"));
            }
        }
    }
    (unplaced, wrong)
}

#[test]
fn every_import_points_down_the_written_layers_and_every_module_has_one() {
    let (unplaced, wrong) = layer_violations(FEATURES, &sources());
    assert!(unplaced.is_empty(), "modules and feature layers without a rank in ORDER: {unplaced:?}");
    assert!(wrong.is_empty(), "imports that do not point down the order of docs/ARCHITECTURE.md: {wrong:?}");
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
        code(&["guard", "judge", "decide"], "use crate::{model::RunId, stats::percentile};"),
        code(&["guard", "judge", "alerts"], "use super::super::store::Claim;\nuse crate::guard::{store::Claim};"),
        code(&["guard", "store", "alerts"], "use crate::store::{parse_id, Store};"),
        code(&["guard", "api"], "use crate::api::context::with_session;\nuse crate::lab::model::Probe;"),
        code(&["guard", "ui", "feed"], "use crate::ui::components::Layout;\nuse super::super::api::list;"),
        code(&["guard", "novel"], ""),
        code(&["lab", "model"], ""),
    ];
    let (unplaced, wrong) = layer_violations(&[("guard", &[]), ("lab", &[])], &tree);
    assert_eq!(unplaced, ["guard::novel", "novel"]);
    assert_eq!(
        wrong,
        ["guard::api -> lab::model", "guard::judge -> guard::store", "model -> store"],
        "down the order is fine, a group's branches are each seen, another feature needs declaring"
    );
}

#[test]
fn a_declared_feature_is_imported_down_or_level_but_never_up() {
    let code = |module: &[&str], text: &str| Source {
        module: module.iter().map(|m| (*m).to_string()).collect(),
        path: PathBuf::from(module.join("/")),
        code: text.to_string(),
    };
    let tree = [
        code(&["guard", "service", "tick"], "use crate::runs::service::RunManager;"),
        code(&["guard", "judge"], "use crate::runs::report::ReportSnapshot;"),
        code(&["guard", "model"], "use crate::runs::store::Rows;"),
        code(&["runs", "service"], ""),
        code(&["runs", "report"], "use crate::guard::model::Schedule;"),
        code(&["runs", "store"], ""),
    ];
    let (_, wrong) = layer_violations(&[("guard", &["runs"]), ("runs", &[])], &tree);
    assert_eq!(wrong, ["guard::model -> runs::store", "runs::report -> guard::model"]);
}

#[test]
fn the_features_declarations_do_not_loop() {
    fn reaches(from: &str, to: &str, seen: &mut Vec<String>) -> bool {
        let uses = FEATURES.iter().find(|(f, _)| *f == from).map_or(&[][..], |(_, uses)| *uses);
        uses.iter().any(|u| {
            *u == to
                || (!seen.iter().any(|s| s == u) && {
                    seen.push((*u).to_string());
                    reaches(u, to, seen)
                })
        })
    }
    for (feature, uses) in FEATURES {
        assert!(uses.iter().all(|u| is_feature(FEATURES, u)), "{feature} declares a feature that is not one: {uses:?}");
        assert!(!reaches(feature, feature, &mut Vec::new()), "{feature} reaches itself through its declarations");
    }
}

#[test]
fn a_use_tree_names_each_module_it_reaches() {
    let names = |text: &str| use_tree(text).into_iter().map(|p| p.join("::")).collect::<Vec<_>>();
    assert_eq!(names("guard::judge::decide;"), ["guard::judge::decide"]);
    assert_eq!(names("guard::model::Schedule;"), ["guard::model"]);
    assert_eq!(
        names("{alerts::plan, decide::{decide, Decision}, Channels};"),
        ["alerts::plan", "decide::decide", "decide", ""]
    );
    assert_eq!(names("{self, Store};"), ["", ""]);
    assert_eq!(node(&["ui".to_string(), "components".to_string()]), "ui::kit");
    assert_eq!(node(&["ui".to_string(), "pages".to_string(), "workloads".to_string()]), "ui");
}
