//! Several server processes on one PostgreSQL database (the scale-out setup): a replica starting up leaves the
//! others' runs alone, follows them live from the database, hands a cancel to the run's owner, and interrupts the
//! runs of an owner that went silent.
#![cfg(feature = "ssr")]
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a failing test should panic loudly")]

use crate::common::{follow_events, spawn_app_on, TestApp, TestDb};
use latency_guard::jobs::{JobOwner, MISSED_HEARTBEATS};
use latency_guard::model::{RunId, RunStatus};
use latency_guard::sim::{self, Delay, SimConfig};
use serde_json::{json, Value};
use std::time::Duration;

const HEARTBEAT: Duration = Duration::from_millis(100);

async fn replica(db: &TestDb) -> TestApp {
    spawn_app_on(&db.url, |settings| settings.run_heartbeat = HEARTBEAT).await
}

/// Starts a run of `iterations` requests of about 110 ms each on `app`; returns its id.
async fn start_slow_run(app: &TestApp, cookie: &str, base_url: &str, iterations: u32) -> String {
    let input = json!({"input": {"name": "sim", "baseUrl": base_url, "model": "sim-model"}});
    let (status, text) = app.call("connectors/create", input, Some(cookie)).await;
    assert_eq!(status, 200, "{text}");
    let connector = serde_json::from_str::<Value>(&text).unwrap()["id"].as_str().unwrap().to_string();
    let plan = json!({"input": {
        "connectorId": connector,
        "agent": {"name": "bot", "tokenBudget": 20},
        "prompts": ["What is latency?"],
        "iterations": iterations,
        "mode": {"kind": "closed", "concurrency": 1},
    }});
    let (status, text) = app.call("runs/start", plan, Some(cookie)).await;
    assert_eq!(status, 200, "{text}");
    serde_json::from_str::<Value>(&text).unwrap()["id"].as_str().unwrap().to_string()
}

async fn status_of(app: &TestApp, cookie: &str, run: &str) -> String {
    let (status, text) = app.call("runs/report", json!({"id": run}), Some(cookie)).await;
    assert_eq!(status, 200, "{text}");
    serde_json::from_str::<Value>(&text).unwrap()["run"]["status"].as_str().unwrap().to_string()
}

#[tokio::test]
async fn a_second_replica_follows_and_cancels_a_run_the_first_one_drives() {
    let Some(db) = TestDb::postgres().await else { return };
    let config = SimConfig {
        ttft: Delay::Fixed(Duration::from_millis(10)),
        itl: Delay::Fixed(Duration::from_millis(5)),
        tokens: 20,
        ..Default::default()
    };
    let sim = sim::spawn(config, "127.0.0.1:0".parse().unwrap()).await.unwrap();
    let a = replica(&db).await;
    let (_, cookie_a) = a.session_for("owner").await;
    let started = tokio::time::Instant::now();
    let run = start_slow_run(&a, &cookie_a, &sim.base_url(), 200).await;

    // A replica starting while the run goes must not take it for an orphan, nor must its heartbeat rounds. Showing
    // an absence takes time: the run must grow older than the silence that makes an orphan. Then one round of A
    // (its heartbeat) and one of B (its orphan check) run in that order, so B's rule is exercised once for certain
    // past that age, whatever the background loops' timing on a busy machine.
    let b = replica(&db).await;
    let (_, cookie_b) = b.session_for("owner").await;
    tokio::time::sleep_until(started + HEARTBEAT * (MISSED_HEARTBEATS + 2)).await;
    a.state.runs.maintain_once(HEARTBEAT).await;
    b.state.runs.maintain_once(HEARTBEAT).await;
    assert_eq!(status_of(&b, &cookie_b, &run).await, "running");

    // B follows the run from the database: the snapshot, then updates with new points as A stores them.
    let events = follow_events(&b, &cookie_b, &run, 2).await;
    assert_eq!(events[0].0, "update");
    let first_done = events[0].1["progress"]["done"].as_u64().unwrap();
    assert_eq!(events[1].0, "update");
    assert!(events[1].1["progress"]["done"].as_u64().unwrap() > first_done, "{:?}", events[1].1["progress"]);
    assert!(!events[1].1["points"].as_array().unwrap().is_empty(), "new points arrive through the other replica");

    // A cancel asked of B reaches A, which drives the run, within a few heartbeats.
    let (status, text) = b.call("runs/cancel", json!({"id": run}), Some(&cookie_b)).await;
    assert_eq!((status, text.as_str()), (200, "true"));
    let mut waited = Duration::ZERO;
    while status_of(&b, &cookie_b, &run).await == "running" && waited < Duration::from_secs(5) {
        tokio::time::sleep(HEARTBEAT).await;
        waited += HEARTBEAT;
    }
    assert_eq!(status_of(&b, &cookie_b, &run).await, "cancelled");
    let (_, report) = b.call("runs/report", json!({"id": run}), Some(&cookie_b)).await;
    let results = serde_json::from_str::<Value>(&report).unwrap()["snapshot"]["results"].as_array().unwrap().len();
    assert!((1..200).contains(&results), "finished iterations are kept, the rest never sent: {results}");
    db.cleanup().await;
}

#[tokio::test]
async fn a_run_whose_owner_went_silent_is_interrupted_by_another_replica() {
    let Some(db) = TestDb::postgres().await else { return };
    let sim = sim::spawn(SimConfig::default(), "127.0.0.1:0".parse().unwrap()).await.unwrap();
    let a = replica(&db).await;
    let (workspace, cookie) = a.session_for("owner").await;
    // A run left behind by a replica that stopped without closing it: its last heartbeat is a minute old.
    let live_run = start_slow_run(&a, &cookie, &sim.base_url(), 1).await;
    let view = a.state.store.get_run(workspace, live_run.parse().unwrap()).await.unwrap();
    let connector = a.state.store.list_connectors(workspace).await.unwrap().remove(0);
    let orphan = RunId::new_random();
    let minute_ago = a.state.clock.now_ms() - 60_000;
    a.state.store.create_run(workspace, orphan, &view.plan, &connector, "stopped-replica", minute_ago).await.unwrap();

    let mut waited = Duration::ZERO;
    while a.state.store.get_run(workspace, orphan).await.unwrap().status == RunStatus::Running
        && waited < Duration::from_secs(3)
    {
        tokio::time::sleep(HEARTBEAT).await;
        waited += HEARTBEAT;
    }
    let orphan = a.state.store.get_run(workspace, orphan).await.unwrap();
    assert_eq!(orphan.status, RunStatus::Interrupted);
    assert!(orphan.finished_at_ms.unwrap() > minute_ago);
    db.cleanup().await;
}

#[tokio::test]
async fn a_rename_on_one_replica_shows_in_the_report_view_another_replica_kept() {
    let Some(db) = TestDb::postgres().await else { return };
    let sim = sim::spawn(SimConfig::fixed_ms(5, 1, 4), "127.0.0.1:0".parse().unwrap()).await.unwrap();
    let a = replica(&db).await;
    let (_, cookie_a) = a.session_for("owner").await;
    let run = start_slow_run(&a, &cookie_a, &sim.base_url(), 3).await;
    let b = replica(&db).await;
    let (_, cookie_b) = b.session_for("owner").await;
    let view_on_b = || async {
        let (status, text) = b.call("runs/view", json!({"id": run}), Some(&cookie_b)).await;
        assert_eq!(status, 200, "{text}");
        serde_json::from_str::<Value>(&text).unwrap()
    };
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    while status_of(&a, &cookie_a, &run).await == "running" {
        assert!(tokio::time::Instant::now() < deadline, "the run did not finish");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let before = view_on_b().await;
    assert_eq!(b.state.report_views.len(), 1, "replica B keeps the finished run's view");

    let (status, text) = a.call("runs/rename", json!({"id": run, "title": "Renamed on A"}), Some(&cookie_a)).await;
    assert_eq!(status, 200, "{text}");
    let after = view_on_b().await;
    assert_eq!(after["view"]["report"]["title"], "Renamed on A");
    assert_eq!(after["view"]["stats"], before["view"]["stats"]);
}
