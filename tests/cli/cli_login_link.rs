//! `latency-guard login-link` finds the server's data or says where it looked: run from another folder it must not
//! quietly make a new, empty database and print a link into it.
#![cfg(feature = "ssr")]
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a failing test should panic loudly")]

use std::path::Path;

async fn login_link_in(dir: &Path) -> (i32, String, String) {
    let output = tokio::process::Command::new(env!("CARGO_BIN_EXE_latency-guard"))
        .arg("login-link")
        .current_dir(dir)
        .env_remove("DATABASE_URL")
        .env_remove("LATENCY_GUARD_DATA_DIR")
        .env_remove("LATENCY_GUARD_CONFIG")
        .env("LATENCY_GUARD_DEMO_SIMULATOR", "false")
        .output()
        .await
        .unwrap();
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (output.status.code().unwrap_or(-1), text(&output.stdout), text(&output.stderr))
}

#[tokio::test]
async fn from_a_folder_without_data_it_says_where_it_looked_and_creates_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let (code, stdout, stderr) = login_link_in(dir.path()).await;
    assert_ne!(code, 0, "{stdout}");
    assert!(stderr.contains("no latency-guard database at"), "{stderr}");
    assert!(stderr.contains("data/latency-guard.db") && stderr.contains("LATENCY_GUARD_DATA_DIR"), "{stderr}");
    assert!(!stdout.contains("/auth/link"), "no link into an empty database: {stdout}");
    assert!(!dir.path().join("data").exists(), "nothing was created");
}

#[tokio::test]
async fn in_the_servers_folder_it_prints_a_link_and_names_the_database() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("data/latency-guard.db");
    latency_guard::store::Store::connect(&latency_guard::config::sqlite_url(&db)).await.unwrap().close().await;
    let (code, stdout, stderr) = login_link_in(dir.path()).await;
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("/auth/link?token="), "{stdout}");
    assert!(stderr.contains(&format!("SQLite file {}", std::path::absolute(&db).unwrap().display())), "{stderr}");
}
