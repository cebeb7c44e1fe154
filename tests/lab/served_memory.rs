//! The served process gives freed memory back: `latency-guard serve` starts itself again in place with glibc's
//! malloc settings (`GLIBC_TUNABLES`), the same process answering, and keeps an operator's own settings. What the
//! settings save is measured by `cargo bench --bench workload_memory` (docs/RELIABILITY.md).
#![cfg(feature = "ssr")]

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

/// `latency-guard serve` started with `tunables` (none: not set), once it listens: the environment of the process
/// that answers, as the kernel holds it.
fn served_environment(tunables: Option<&str>) -> String {
    let dir = tempfile::tempdir().unwrap();
    let mut command = Command::new(env!("CARGO_BIN_EXE_latency-guard"));
    command
        .arg("serve")
        .env("DATABASE_URL", latency_guard::config::sqlite_url(&dir.path().join("memory.db")))
        .env("LATENCY_GUARD_DATA_DIR", dir.path())
        .env("LEPTOS_SITE_ADDR", "127.0.0.1:0")
        .env("LATENCY_GUARD_GUARD_TICK_INTERVAL_S", "0")
        .env_remove("GLIBC_TUNABLES")
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    if let Some(tunables) = tunables {
        command.env("GLIBC_TUNABLES", tunables);
    }
    let mut child = command.spawn().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let listening = lines.find(|line| line.as_ref().is_ok_and(|l| l.contains("listening on")));
    let environment = std::fs::read(format!("/proc/{}/environ", child.id())).unwrap_or_default();
    let _ = child.kill();
    let _ = child.wait();
    assert!(listening.is_some(), "the server did not start");
    // glibc parses the variable in place and may leave a NUL between its settings: the bytes up to the next
    // variable's name, with NULs read as the `:` they were.
    let environment = String::from_utf8_lossy(&environment).into_owned();
    let start = environment.find("GLIBC_TUNABLES=").expect("GLIBC_TUNABLES is set");
    let mut value = String::new();
    for part in environment[start..].split('\0') {
        if !value.is_empty() && !part.starts_with("glibc.") {
            break;
        }
        if !value.is_empty() {
            value.push(':');
        }
        value.push_str(part);
    }
    value
}

#[test]
fn the_server_runs_with_malloc_settings_that_give_memory_back_and_keeps_an_operators_own() {
    let set = served_environment(None);
    assert!(set.starts_with("GLIBC_TUNABLES=glibc.malloc.arena_max="), "{set:?}");
    assert!(set.ends_with(":glibc.malloc.mmap_threshold=131072:glibc.malloc.trim_threshold=131072"), "{set:?}");
    let own = served_environment(Some("glibc.malloc.arena_max=3"));
    assert_eq!(own, "GLIBC_TUNABLES=glibc.malloc.arena_max=3");
}
