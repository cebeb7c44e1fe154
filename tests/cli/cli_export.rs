//! `latency-guard export`: the real binary, from a stored run and from a snapshot file, and its errors.
#![cfg(feature = "ssr")]
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a failing test should panic loudly")]

use crate::common;

use crate::common::{cli, spawn_app_with_demo};
use serde_json::{json, Value};

#[tokio::test]
async fn exports_a_stored_report_and_a_snapshot_file_in_every_format() {
    let app = spawn_app_with_demo().await;
    let (workspace, cookie) = app.session_for(latency_guard::store::LOCAL_OWNER).await;
    // The demo connector, pointing at the app's bundled simulator.
    let connector = app.state.store.list_connectors(workspace).await.unwrap().remove(0).id.to_string();
    let plan = json!({"input": {"connectorId": connector, "agent": {"name": "bot", "tokenBudget": 8},
                                "prompts": ["a, \"quoted\" prompt"], "iterations": 3,
                                "mode": {"kind": "closed", "concurrency": 1}}});
    let (status, text) = app.call("runs/start", plan, Some(&cookie)).await;
    assert_eq!(status, 200, "{text}");
    let run = serde_json::from_str::<Value>(&text).unwrap()["id"].as_str().unwrap().to_string();
    common::follow_events(&app, &cookie, &run, usize::MAX).await;
    let (_, report) = app.call("runs/report", json!({"id": run}), Some(&cookie)).await;
    let api_snapshot = serde_json::from_str::<Value>(&report).unwrap()["snapshot"].clone();

    let env = [("DATABASE_URL", app.state.settings.database_url.as_str()), ("LATENCY_GUARD_DEMO_SIMULATOR", "false")];
    let (code, json_out, stderr) = cli(&["export", &run, "--format", "json"], &env).await;
    assert_eq!(code, 0, "{stderr}");
    let exported: Value = serde_json::from_str(&json_out).unwrap();
    assert_eq!(exported, api_snapshot, "the command exports the report the app shows");
    common::assert_report_schema(&exported);

    let dir = tempfile::tempdir().unwrap();
    let snapshot_file = dir.path().join("snapshot.json");
    std::fs::write(&snapshot_file, &json_out).unwrap();
    let from = snapshot_file.to_str().unwrap();
    // A token kept in the environment for exports from a server does not stop one from a file.
    let kept = [("LATENCY_GUARD_TOKEN", "lgt_kept_for_remote_exports")];
    let (code, csv_out, stderr) = cli(&["export", "--from", from, "--format", "csv"], &kept).await;
    assert_eq!(code, 0, "{stderr}");
    let lines: Vec<&str> = csv_out.lines().collect();
    assert_eq!(
        lines[0],
        "report_id,agent,connector_model,prompt,iteration,ttft_ms,total_ms,tokens_in,tokens_out,cost_usd,error,\
         sent_at_ms,tpot_ms,itl_ms,cached_tokens"
    );
    assert_eq!(lines.len(), 4);
    assert!(lines[1].starts_with(&format!("{run},bot,sim-model,\"a, \"\"quoted\"\" prompt\",0,")), "{}", lines[1]);

    let html_file = dir.path().join("report.html");
    let (code, stdout, stderr) =
        cli(&["export", "--from", from, "--format", "html", "--out", html_file.to_str().unwrap()], &[]).await;
    assert_eq!((code, stdout.as_str()), (0, ""), "{stderr}");
    let html = std::fs::read_to_string(&html_file).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>") && html.contains("a, &quot;quoted&quot; prompt"));
}

#[tokio::test]
async fn bad_input_gets_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let not_a_report = dir.path().join("other.json");
    std::fs::write(&not_a_report, r#"{"report": {"id": "x"}}"#).unwrap();
    let db = latency_guard::config::sqlite_url(&dir.path().join("app.db"));
    latency_guard::store::Store::connect(&db).await.unwrap().close().await;
    let env = [("DATABASE_URL", db.as_str())];
    let missing = dir.path().join("missing.json");
    let unknown = uuid::Uuid::new_v4().to_string();
    let cases: Vec<(Vec<&str>, String)> = vec![
        (vec!["export", "--from", not_a_report.to_str().unwrap(), "--format", "pdf"], "use json, csv or html".into()),
        (vec!["export", "--format", "csv"], "REPORT_ID".into()),
        (vec!["export", "--from", missing.to_str().unwrap(), "--format", "csv"], "cannot read".into()),
        (
            vec!["export", "--from", not_a_report.to_str().unwrap(), "--format", "csv"],
            "is not a report snapshot: missing field".into(),
        ),
        (vec!["export", "not-an-id", "--format", "csv"], "\"not-an-id\" is not a report id".into()),
        (vec!["export", &unknown, "--format", "csv"], format!("report {unknown}: not found")),
    ];
    for (args, needle) in cases {
        let (code, _, stderr) = cli(&args, &env).await;
        assert_ne!(code, 0, "{args:?}");
        assert!(stderr.contains(&needle), "{args:?}: {stderr}");
    }
    // Pointed at a database that does not exist, it says so and makes none.
    let absent = dir.path().join("absent.db");
    let absent_url = latency_guard::config::sqlite_url(&absent);
    let (code, _, stderr) = cli(&["export", &unknown, "--format", "csv"], &[("DATABASE_URL", &absent_url)]).await;
    assert_ne!(code, 0);
    assert!(stderr.contains("no latency-guard database at"), "{stderr}");
    assert!(!absent.exists());
}
