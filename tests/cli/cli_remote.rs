//! The CLI against a running server with an API token, as a CI pipeline uses it: `bench --server URL --connector
//! ID` runs on the server (stored in the token's workspace, progress followed here) and `export --server URL`
//! reads a report back; a revoked token or another workspace's connector is refused in words.
#![cfg(feature = "ssr")]
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a failing test should panic loudly")]

use crate::common;

use serde_json::{json, Value};

use crate::common::{cli, spawn_app};
use latency_guard::sim::{spawn_local, SimConfig};

#[tokio::test]
async fn bench_and_export_talk_to_a_running_server_with_a_token() {
    let app = spawn_app().await;
    let sim = spawn_local(SimConfig::fixed_ms(5, 1, 8).with_key(Some("sk-remote-key"))).await.unwrap();
    let (_, cookie) = app.session_for("ci@example.test").await;
    let connector = app.json(&cookie,
        "connectors/create",
        json!({"input": {"name": "Staging", "baseUrl": sim.base_url(), "model": "sim-model", "apiKey": "sk-remote-key"}}),
    )
    .await["id"]
        .as_str()
        .unwrap()
        .to_string();
    let created = app.json(&cookie, "tokens/create", json!({"input": {"name": "pipeline"}})).await;
    let token = created["token"].as_str().unwrap().to_string();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("remote.json");
    let out_path = out.to_str().unwrap();

    let args = [
        "bench",
        "--allow-invalid",
        "--server",
        &app.base,
        "--connector",
        &connector,
        "--prompt",
        "hello",
        "-n",
        "4",
        "--out",
        out_path,
    ];
    let (code, stdout, stderr) = cli(&args, &[("LATENCY_GUARD_TOKEN", &token)]).await;
    assert_eq!(code, 0, "stdout:\n{stdout}\nstderr:\n{stderr}");
    assert!(stdout.contains("4 measured (4 ok, 0 failed)"), "{stdout}");
    assert!(stderr.contains("started on") && stderr.contains("4/4 done"), "progress followed: {stderr}");
    for text in [&stdout, &stderr] {
        assert!(!text.contains(&token) && !text.contains("sk-remote-key"), "no secret printed: {text}");
    }
    let snapshot: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    common::assert_report_schema(&snapshot);
    // The run is the server's, in the token's workspace, as if started from the browser.
    let runs = app.json(&cookie, "runs/list", json!({})).await;
    let run = runs[0]["id"].as_str().unwrap().to_string();
    assert_eq!((runs.as_array().unwrap().len(), runs[0]["status"].as_str()), (1, Some("completed")));
    assert_eq!(snapshot["report"]["id"], run.as_str());

    // Export reads it back from the server, the token on the command line this time.
    let (code, csv, stderr) =
        cli(&["export", &run, "--server", &app.base, "--token", &token, "--format", "csv"], &[]).await;
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(csv.lines().count(), 5, "a header and 4 rows: {csv}");

    // A second run on the server, gated against the first by its id (read from the server with the token).
    let gate = [&args[..10], &["--against", &run, "--threshold", "p95_ms:pct_increase>500"]].concat();
    let (code, stdout, stderr) = cli(&gate, &[("LATENCY_GUARD_TOKEN", &token)]).await;
    assert_eq!(code, 0, "the same endpoint passes: {stdout}\n{stderr}");
    assert!(stdout.contains("against        4 baseline / 4 run successful requests"), "{stdout}");
    assert!(stdout.contains("threshold      p95_ms:pct_increase>500 ok: "), "{stdout}");
    let unknown = uuid::Uuid::new_v4().to_string();
    let gate = [&args[..10], &["--against", &unknown, "--threshold", "p95_ms:pct_increase>5"]].concat();
    let (code, _, stderr) = cli(&gate, &[("LATENCY_GUARD_TOKEN", &token)]).await;
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("runs/report"), "an unknown baseline is refused before the run: {stderr}");
    assert_eq!(app.json(&cookie, "runs/list", json!({})).await.as_array().unwrap().len(), 2, "nothing ran for it");

    // Another workspace's connector, and a revoked token: refused, in words, exit status not 0.
    let (_, other) = app.session_for("other@example.test").await;
    let theirs = app.json(&other, "tokens/create", json!({"input": {"name": "theirs"}})).await["token"]
        .as_str()
        .unwrap()
        .to_string();
    let (code, _, stderr) = cli(&args, &[("LATENCY_GUARD_TOKEN", &theirs)]).await;
    assert_eq!(code, 1);
    assert!(stderr.contains("runs/start: not found in the token's workspace"), "{stderr}");
    app.json(&cookie, "tokens/revoke", json!({"id": created["view"]["id"]})).await;
    let (code, _, stderr) = cli(&args, &[("LATENCY_GUARD_TOKEN", &token)]).await;
    assert_eq!(code, 1);
    assert!(stderr.contains("did not accept the token"), "{stderr}");
    let (code, _, stderr) = cli(&["export", &run, "--server", &app.base, "--format", "json"], &[]).await;
    assert_ne!(code, 0, "--server without a token");
    assert!(stderr.contains("--token"), "{stderr}");
    let (code, _, stderr) = cli(&args, &[("LATENCY_GUARD_TOKEN", "sk-not-a-token")]).await;
    assert_eq!(code, 1);
    assert!(stderr.contains("not an API token"), "{stderr}");
}
