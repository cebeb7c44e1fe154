//! A run whose PostgreSQL restarts mid-run: every connection breaks and new ones are refused for two seconds
//! (a proxy on loopback plays the restart, so the server the other tests share is left alone). The run must
//! wait for the database, then finish with every iteration stored once.
#![cfg(feature = "ssr")]
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a failing test should panic loudly")]

use crate::common;

use crate::common::outage::Outage;
use crate::common::{spawn_app_on, TestDb};
use latency_guard::sim::{self, SimConfig};
use serde_json::{json, Value};
use std::net::ToSocketAddrs;
use std::time::Duration;

#[tokio::test]
async fn a_run_outlives_its_database_restarting_and_loses_no_iteration() {
    let Some(db) = TestDb::postgres().await else { return };
    let mut url = url::Url::parse(&db.url).unwrap();
    let upstream = (url.host_str().unwrap(), url.port().unwrap_or(5432)).to_socket_addrs().unwrap().next().unwrap();
    let proxy = Outage::start(upstream).await;
    url.set_host(Some("127.0.0.1")).unwrap();
    url.set_port(Some(proxy.addr.port())).unwrap();
    let app = spawn_app_on(url.as_str(), |_| {}).await;
    let sim = sim::spawn(
        SimConfig::fixed(Duration::from_millis(1), Duration::from_millis(1), 4),
        "127.0.0.1:0".parse().unwrap(),
    )
    .await
    .unwrap();
    let (_, cookie) = app.session_for("owner").await;
    let (status, created) = app
        .call(
            "connectors/create",
            json!({"input": {"name": "sim", "baseUrl": sim.base_url(), "model": "sim-model"}}),
            Some(&cookie),
        )
        .await;
    assert_eq!(status, 200, "{created}");
    let connector = serde_json::from_str::<Value>(&created).unwrap()["id"].clone();
    let plan = json!({"input": {"connectorId": connector, "agent": {"name": "outage", "tokenBudget": 4},
        "prompts": ["hi"], "iterations": 1_500, "mode": {"kind": "open", "ratePerSecond": 500, "maxConcurrency": 32}}});
    let (status, started) = app.call("runs/start", plan, Some(&cookie)).await;
    assert_eq!(status, 200, "{started}");
    let run = serde_json::from_str::<Value>(&started).unwrap()["id"].as_str().unwrap().to_string();

    // The page follows the run live from before the outage (the live route reads the run from the database to
    // check the session's workspace, so it answers only while the database does).
    let app = std::sync::Arc::new(app);
    let following = {
        let (app, cookie, run) = (std::sync::Arc::clone(&app), cookie.clone(), run.clone());
        tokio::spawn(async move { common::follow_events(&app, &cookie, &run, usize::MAX).await })
    };
    tokio::time::sleep(Duration::from_millis(800)).await;
    proxy.cut(Duration::from_secs(2));
    let events = following.await.unwrap();
    let (_, end) = events.last().unwrap();
    assert_eq!(end["progress"]["status"], "completed", "{end}");

    let (status, report) = app.call("runs/report", json!({"id": run}), Some(&cookie)).await;
    assert_eq!(status, 200, "{report}");
    let report: Value = serde_json::from_str(&report).unwrap();
    let results = report["snapshot"]["results"].as_array().unwrap();
    assert_eq!(results.len(), 1_500, "every iteration stored, none twice");
    assert!(results.iter().all(|r| common::null_at(r, "/error")), "the endpoint was fine throughout");
    let mut seqs: Vec<u64> = results.iter().map(|r| r["seq"].as_u64().unwrap()).collect();
    seqs.dedup();
    assert_eq!(seqs.len(), 1_500);
    drop(proxy);
    db.cleanup().await;
}
