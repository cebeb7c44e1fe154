//! How long one Guard tick takes: 25 due schedules, each running a 5-prompt set (125 requests, non-streamed,
//! one at a time per schedule, `guard-tick-parallelism` schedules at once), compared with a pinned baseline,
//! recorded in SQLite (or the PostgreSQL database given with `--postgres URL`). The simulator runs as its own
//! process; `--ttft-ms 0` leaves the app's own cost, larger values show how the endpoint's latency adds up.
//!
//! Run: `cargo bench --bench guard_tick --no-default-features --features ssr [-- --ttft-ms 50] [--postgres URL]`

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a broken benchmark should stop loudly")]

mod support;

use latency_guard::clock::{Clock, SystemClock};
use latency_guard::config::Secret;
use latency_guard::engine::HttpClient;
use latency_guard::guard::judge::{observe, GUARD_TEMPERATURE};
use latency_guard::guard::model::{
    BenchmarkSetInput, Cadence, EvaluationStatus, Metric, Op, ScheduleInput, SetPrompt, Severity, Threshold,
};
use latency_guard::guard::service::{Guard, GuardOptions};
use latency_guard::guard::store::NewBaseline;
use latency_guard::model::{Agent, ConnectorInput, LoadMode, RunPlanInput};
use latency_guard::runs::service::RunManager;
use latency_guard::secrets::SecretBox;
use latency_guard::store::Store;
use std::sync::Arc;
use std::time::Instant;

const SCHEDULES: usize = 25;
const PROMPTS: usize = 5;

fn arg(name: &str) -> Option<String> {
    let args: Vec<String> = std::env::args().collect();
    args.iter().position(|a| a == name).and_then(|i| args.get(i + 1).cloned())
}

#[tokio::main]
async fn main() {
    let ttft = arg("--ttft-ms").unwrap_or_else(|| "0".into());
    let parallelism: usize = arg("--parallelism").map_or(4, |p| p.parse().unwrap());
    let dir = tempfile::tempdir().unwrap();
    let admin = arg("--postgres");
    let url = match &admin {
        Some(admin) => fresh_postgres_database(admin).await,
        None => latency_guard::config::sqlite_url(&dir.path().join("bench.db")),
    };
    let sim = support::simulator(None, &["--ttft-ms", &ttft, "--itl-ms", "0", "--tokens", "16"]);
    let store = Store::connect(&url).await.unwrap();
    let clock: Arc<dyn Clock> = Arc::new(SystemClock);
    let sealer = SecretBox::new(&Secret::generate());
    let runs = RunManager::new(store.clone(), sealer.clone(), HttpClient::new().unwrap(), clock.clone());
    let now = clock.now_ms();
    let (ws, _) = store.ensure_workspace(&format!("bench-{now}"), "bench", now).await.unwrap();
    let connector = ConnectorInput {
        name: "sim".into(),
        base_url: sim.base_url.clone(),
        model: "sim-model".into(),
        ..Default::default()
    };
    let connector = store.create_connector(ws.id, &connector.validate().unwrap(), false, &sealer, now).await.unwrap();
    let prompts: Vec<String> = (0..PROMPTS).map(|i| format!("Benchmark prompt number {i}: answer briefly.")).collect();
    let set = BenchmarkSetInput {
        name: "five prompts".into(),
        prompts: prompts.iter().map(|p| SetPrompt { text: p.clone() }).collect(),
        system_prompt: None,
        max_tokens: 16,
    };
    let set = store.create_set(ws.id, &set.validate().unwrap(), now).await.unwrap();
    // A 30-request baseline of the set, pinned, so every evaluation makes the full comparison.
    // As Guard runs a set: unstreamed, at Guard's temperature.
    let agent = Agent { name: "baseline".into(), system_prompt: None, tools: vec![], token_budget: 16 };
    let one = LoadMode::Closed { concurrency: 1 };
    let baseline = RunPlanInput {
        stream: false,
        temperature: GUARD_TEMPERATURE,
        ..RunPlanInput::new(connector.id, agent, prompts, 6, one)
    };
    let run = runs.run_to_end(ws.id, baseline).await.unwrap();
    let (total_ms, summary) = observe(&store.run_iterations(ws.id, run.id).await.unwrap());
    store
        .pin_baseline(
            ws.id,
            &NewBaseline {
                set_id: set.id,
                connector_id: connector.id,
                workload: None,
                run_id: run.id,
                total_ms,
                summary,
                streamed: None,
            },
            now,
        )
        .await
        .unwrap();
    for i in 0..SCHEDULES {
        let input = ScheduleInput {
            name: format!("schedule {i:02}"),
            set_id: set.id,
            connector_id: connector.id,
            enabled: true,
            cadence: Cadence::FifteenMinutes,
            notify: latency_guard::guard::model::Notify {
                webhook_url: Some("https://hooks.example.com/guard".into()),
                ..Default::default()
            },
            thresholds: vec![
                Threshold {
                    metric: Metric::P95Ms,
                    op: Op::PctIncrease,
                    value: 20.0,
                    severity: Severity::Warn,
                    test: None,
                },
                Threshold {
                    metric: Metric::ErrorRate,
                    op: Op::AbsIncrease,
                    value: 0.05,
                    severity: Severity::Critical,
                    test: None,
                },
            ],
            alpha: 0.05,
            require_significance: true,
            workload_id: None,
            stream: false,
            policy: Default::default(),
        };
        store.create_schedule(ws.id, &input, "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", &sealer, now).await.unwrap();
    }
    let options =
        GuardOptions { limit: 25, parallelism, public_base: "http://bench".into(), database_clock: true, mailer: None };
    let guard = Guard::new(store.clone(), runs, clock, options);
    let started = Instant::now();
    let tick = guard.tick().await.unwrap();
    let took = started.elapsed();
    assert_eq!(tick.ran.len(), SCHEDULES);
    let compared = [EvaluationStatus::Healthy, EvaluationStatus::Breached];
    assert!(tick.ran.iter().all(|o| compared.contains(&o.status)), "{:?}", tick.ran);
    let backend = if url.starts_with("postgres") { "PostgreSQL" } else { "SQLite" };
    println!("| backend | simulator TTFT | parallelism | schedules × prompts | tick wall time | per schedule |");
    println!("|---|---|---|---|---|---|");
    println!(
        "| {backend} | {ttft} ms | {parallelism} | {SCHEDULES} × {PROMPTS} | {:.0} ms | {:.1} ms |",
        took.as_secs_f64() * 1e3,
        took.as_secs_f64() * 1e3 / SCHEDULES as f64
    );
    store.close().await;
    if let Some(admin) = admin {
        let name = url.rsplit('/').next().unwrap_or_default();
        let pool = sqlx::AnyPool::connect(&admin).await.unwrap();
        sqlx::query(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)")).execute(&pool).await.unwrap();
    }
}

/// A new, empty database on the server of `admin_url` (dropped at the end), so the benchmark leaves nothing.
async fn fresh_postgres_database(admin_url: &str) -> String {
    sqlx::any::install_default_drivers();
    let name = format!("lg_bench_{}", uuid::Uuid::new_v4().simple());
    let pool = sqlx::AnyPool::connect(admin_url).await.unwrap();
    sqlx::query(&format!("CREATE DATABASE {name}")).execute(&pool).await.unwrap();
    pool.close().await;
    let (base, _) = admin_url.rsplit_once('/').unwrap();
    format!("{base}/{name}")
}
