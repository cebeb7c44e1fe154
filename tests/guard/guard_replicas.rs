//! Several replicas on one PostgreSQL database tick at once: every due schedule slot runs exactly once. On one
//! SQLite file, two tickers at the same instant (the in-process loop and the tick hook) never fail with
//! "database is locked".
#![cfg(feature = "ssr")]
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a failing test should panic loudly")]

use crate::common::TestDb;
use latency_guard::clock::FixedClock;
use latency_guard::config::Secret;
use latency_guard::engine::HttpClient;
use latency_guard::guard::model::{
    BenchmarkSetInput, Cadence, EvaluationStatus, Metric, Op, ScheduleInput, SetPrompt, Severity, Threshold,
};
use latency_guard::guard::service::{Guard, GuardOptions};
use latency_guard::model::{ConnectorInput, ScheduleId};
use latency_guard::runs::service::RunManager;
use latency_guard::secrets::SecretBox;
use latency_guard::sim::{self, Delay, SimConfig};
use latency_guard::store::Store;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

const T0: i64 = 1_800_000_000_000;
const SCHEDULES: usize = 200;

#[tokio::test]
async fn three_replicas_racing_over_200_due_schedules_run_each_exactly_once() {
    let Some(db) = TestDb::postgres().await else { return };
    race(db, 3).await;
}

/// Before write transactions took SQLite's lock at their start, a ticker whose claim had read first failed at once
/// with "database is locked" when the other had written in between.
#[tokio::test]
async fn two_tickers_on_one_sqlite_file_run_each_due_schedule_once_and_never_fail() {
    race(TestDb::sqlite().await, 2).await;
}

/// `replicas` Guards, each with its own connection pool, tick in a loop over 200 due schedules until a tick finds
/// nothing due; every tick must succeed and every schedule run exactly once.
async fn race(db: TestDb, replicas: usize) {
    let sim_config = SimConfig { ttft: Delay::Fixed(Duration::from_millis(1)), tokens: 2, ..Default::default() };
    let sim = sim::spawn(sim_config, "127.0.0.1:0".parse().unwrap()).await.unwrap();
    let sealer = SecretBox::new(&Secret::generate());
    let clock = Arc::new(FixedClock::at(T0));
    let (ws, _) = db.store.ensure_workspace("owner", "Owner", T0).await.unwrap();
    let connector = ConnectorInput {
        name: "sim".into(),
        base_url: sim.base_url(),
        model: "sim-model".into(),
        ..Default::default()
    };
    let connector = db.store.create_connector(ws.id, &connector.validate().unwrap(), false, &sealer, T0).await.unwrap();
    let set = BenchmarkSetInput {
        // Two: the fewest successful requests a p95 threshold judges (one would be inconclusive).
        name: "two prompts".into(),
        prompts: vec![SetPrompt { text: "hi".into() }, SetPrompt { text: "there".into() }],
        system_prompt: None,
        max_tokens: 4,
    };
    let set = db.store.create_set(ws.id, &set.validate().unwrap(), T0).await.unwrap();
    let mut ids = Vec::new();
    for i in 0..SCHEDULES {
        let input = ScheduleInput {
            name: format!("s{i:03}"),
            set_id: set.id,
            connector_id: connector.id,
            enabled: true,
            cadence: Cadence::Hourly,
            notify: latency_guard::guard::model::Notify::default(),
            thresholds: vec![Threshold {
                metric: Metric::P95Ms,
                op: Op::PctIncrease,
                value: 20.0,
                severity: Severity::Warn,
                test: None,
            }],
            alpha: 0.05,
            require_significance: true,
            workload_id: None,
            stream: false,
            policy: Default::default(),
        };
        ids.push(db.store.create_schedule(ws.id, &input, "whsec_x", &sealer, T0 - 1_000 + i as i64).await.unwrap().id);
    }

    let mut tickers = Vec::new();
    for _ in 0..replicas {
        let store = Store::connect(&db.url).await.unwrap();
        let runs = RunManager::new(store.clone(), sealer.clone(), HttpClient::new().unwrap(), clock.clone());
        let options = GuardOptions {
            limit: 25,
            parallelism: 4,
            public_base: "http://lg.test".into(),
            database_clock: false,
            mailer: None,
        };
        let guard = Guard::new(store, runs, clock.clone(), options);
        tickers.push(tokio::spawn(async move {
            let mut ran: Vec<ScheduleId> = Vec::new();
            loop {
                let tick = guard.tick().await.unwrap();
                if tick.ran.is_empty() {
                    return ran;
                }
                assert!(tick.ran.iter().all(|o| o.status == EvaluationStatus::NoBaseline), "{:?}", tick.ran);
                ran.extend(tick.ran.iter().map(|o| o.schedule_id));
            }
        }));
    }
    let mut per_replica = Vec::new();
    let mut times_run: HashMap<ScheduleId, usize> = HashMap::new();
    for ticker in tickers {
        let ran = ticker.await.unwrap();
        per_replica.push(ran.len());
        for id in ran {
            *times_run.entry(id).or_default() += 1;
        }
    }
    println!("{replicas} tickers ran {per_replica:?} of {SCHEDULES} due schedules");
    assert_eq!(times_run.len(), SCHEDULES, "every due schedule ran");
    assert!(times_run.values().all(|&n| n == 1), "none ran twice");
    for id in &ids {
        let evaluations = db.store.list_evaluations(ws.id, *id, 10).await.unwrap();
        assert_eq!(evaluations.len(), 1, "one evaluation row per slot");
        assert_eq!(db.store.get_schedule(ws.id, *id).await.unwrap().next_run_at_ms, T0 + Cadence::Hourly.period_ms());
    }
    assert_eq!(db.store.list_runs(ws.id).await.unwrap().len(), SCHEDULES, "one run per schedule");
    sim.stop();
    db.cleanup().await;
}
