//! Comparing two runs through the API against two simulators: a real slowdown is found significant by both
//! tests, differences in how runs were measured are named, and another workspace's runs stay out of reach.
#![cfg(feature = "ssr")]
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a failing test should panic loudly")]

use crate::common::{follow_events, spawn_app, TestApp};
use latency_guard::sim::{self, SimConfig};
use serde_json::{json, Value};

async fn run_against(app: &TestApp, cookie: &str, base_url: &str, prompts: &[&str], max_tokens: u32) -> String {
    let input = json!({"input": {"name": "sim", "baseUrl": base_url, "model": "sim-model"}});
    let (_, text) = app.call("connectors/create", input, Some(cookie)).await;
    let connector = serde_json::from_str::<Value>(&text).unwrap()["id"].as_str().unwrap().to_string();
    let plan = json!({"input": {"connectorId": connector, "agent": {"name": "bot", "tokenBudget": max_tokens},
                                "prompts": prompts, "iterations": 12, "mode": {"kind": "closed", "concurrency": 2}}});
    let (status, text) = app.call("runs/start", plan, Some(cookie)).await;
    assert_eq!(status, 200, "{text}");
    let run = serde_json::from_str::<Value>(&text).unwrap()["id"].as_str().unwrap().to_string();
    follow_events(app, cookie, &run, usize::MAX).await;
    run
}

async fn compare(app: &TestApp, cookie: &str, baseline: &str, candidate: &str) -> (u16, Value) {
    let (status, text) =
        app.call("runs/compare", json!({"baseline": baseline, "candidate": candidate}), Some(cookie)).await;
    (status, serde_json::from_str(&text).unwrap_or(Value::Null))
}

#[tokio::test]
async fn a_real_slowdown_is_significant_and_differences_in_method_are_named() {
    let (fast, slow) = (
        sim::spawn_local(SimConfig::fixed_ms(5, 1, 8)).await.unwrap(),
        sim::spawn_local(SimConfig::fixed_ms(40, 1, 8)).await.unwrap(),
    );
    let app = spawn_app().await;
    let (_, cookie) = app.session_for("owner").await;
    let before = run_against(&app, &cookie, &fast.base_url(), &["hi"], 16).await;
    let after = run_against(&app, &cookie, &slow.base_url(), &["hi"], 16).await;

    let (status, c) = compare(&app, &cookie, &before, &after).await;
    assert_eq!(status, 200, "{c}");
    assert_eq!(c["warnings"], json!([]), "same model, prompts, max_tokens, streaming and load");
    for latency in ["total", "ttft"] {
        let tests = &c[latency];
        assert_eq!((tests["nBaseline"].as_u64(), tests["nCandidate"].as_u64()), (Some(12), Some(12)));
        assert!(tests["welchT"].as_f64().unwrap() > 0.0, "the candidate is slower: {tests}");
        assert!(tests["welchP"].as_f64().unwrap() < 1e-6, "35 ms slower on every request is no noise: {tests}");
        assert!(tests["mannWhitneyP"].as_f64().unwrap() < 1e-3, "{tests}");
    }
    let (b, a) = (&c["baseline"]["stats"]["ttft"]["p50"], &c["candidate"]["stats"]["ttft"]["p50"]);
    assert!(a.as_f64().unwrap() - b.as_f64().unwrap() > 30.0, "{b} → {a}");
    assert!(c["totalCdf"][0].as_array().unwrap().len() >= 2 && c["ttftCdf"][1].as_array().unwrap().len() >= 2);

    // The same endpoint twice: no real difference, so no small p-value.
    let again = run_against(&app, &cookie, &fast.base_url(), &["hi"], 16).await;
    let (_, same) = compare(&app, &cookie, &before, &again).await;
    assert!(same["ttft"]["mannWhitneyP"].as_f64().unwrap() > 1e-4, "{}", same["ttft"]);

    // Measured differently: said so instead of silently compared.
    let other = run_against(&app, &cookie, &fast.base_url(), &["hi", "a longer question"], 8).await;
    let (_, c) = compare(&app, &cookie, &before, &other).await;
    let warnings = c["warnings"].to_string();
    assert!(warnings.contains("Different max_tokens: 16 (baseline) vs 8 (candidate)"), "{warnings}");
    assert!(warnings.contains("Different prompt sets"), "{warnings}");

    // Another workspace cannot compare (or learn of) these runs.
    let (_, stranger) = app.session_for("someone-else").await;
    assert_eq!(compare(&app, &stranger, &before, &after).await.0, 404);
}
