//! Peak memory of a 100,000-iteration run: the server's own run path (run manager, driver, engine, batched
//! inserts into SQLite, live progress fan-out) against the simulator in its own process, so only the app's memory
//! is counted. Resident memory is sampled while the run goes on; if results were kept in memory instead of
//! streaming to the store, it would grow with the iterations done.
//!
//! Run: `cargo bench --bench run_memory --no-default-features --features ssr` (`-- 20000` for a shorter run).

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a broken benchmark should stop loudly")]

mod support;

use latency_guard::clock::SystemClock;
use latency_guard::config::Secret;
use latency_guard::engine::HttpClient;
use latency_guard::model::{Agent, ConnectorInput, LoadMode, RunPlanInput, RunStatus};
use latency_guard::runs::report::snapshot;
use latency_guard::runs::service::RunManager;
use latency_guard::secrets::SecretBox;
use latency_guard::store::Store;
use std::sync::Arc;
use std::time::{Duration, Instant};

const ITERATIONS: u32 = 100_000;
const CONCURRENCY: u32 = 64;

/// A field of `/proc/self/status` in MiB (`VmRSS` now, `VmHWM` the peak so far).
fn status_mib(field: &str) -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kib: f64 = status
        .lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':')?.trim().strip_suffix(" kB")?.trim().parse().ok())
        .unwrap_or(f64::NAN);
    kib / 1024.0
}

fn row(label: &str, done: u64, started: Instant) {
    println!(
        "| {label} | {done:>7} | {:>6.1} | {:>6.1} | {:>6.1} |",
        started.elapsed().as_secs_f64(),
        status_mib("VmRSS"),
        status_mib("VmHWM")
    );
}

#[tokio::main]
async fn main() {
    let iterations: u32 = std::env::args().filter_map(|a| a.parse().ok()).next().unwrap_or(ITERATIONS);
    let sim = support::simulator(None, &["--ttft-ms", "0", "--itl-ms", "0", "--tokens", "16"]);
    let base_url = sim.base_url.clone();

    let dir = tempfile::tempdir().unwrap();
    let store = Store::connect(&format!("sqlite://{}/bench.db?mode=rwc", dir.path().display())).await.unwrap();
    let sealer = SecretBox::new(&Secret::generate());
    let clock = SystemClock;
    let (workspace, _) = store.ensure_workspace("bench", "bench", 0).await.unwrap();
    let connector = ConnectorInput {
        name: "sim".into(),
        base_url,
        api_key: None,
        clear_api_key: false,
        model: "sim-model".into(),
        headers: Default::default(),
        input_price_per_mtok: Some(1.0),
        output_price_per_mtok: Some(2.0),
    };
    let connector =
        store.create_connector(workspace.id, &connector.validate().unwrap(), false, &sealer, 0).await.unwrap();
    let manager = RunManager::new(store.clone(), sealer, HttpClient::new().unwrap(), Arc::new(clock));
    let agent =
        Agent { name: "bench".into(), system_prompt: Some("Be brief.".into()), tools: vec![], token_budget: 16 };
    let closed = LoadMode::Closed { concurrency: CONCURRENCY };
    let input = RunPlanInput {
        title: Some("memory".into()),
        ..RunPlanInput::new(connector.id, agent, vec!["What is latency?".into()], iterations, closed)
    };

    println!("{iterations} iterations, concurrency {CONCURRENCY}, simulator: no delays, 16 tokens; SQLite store");
    println!("| when | done | seconds | RSS MiB | peak RSS MiB |");
    println!("|---|---|---|---|---|");
    let started = Instant::now();
    row("before the run", 0, started);
    let run = manager.start(workspace.id, input).await.unwrap();
    let mut updates = manager.subscribe(workspace.id, run.id).unwrap();
    let mut next_mark = u64::from(iterations) / 10;
    while let Ok(update) = updates.recv().await {
        if update.progress.done >= next_mark {
            row("running", update.progress.done, started);
            next_mark += u64::from(iterations) / 10;
        }
        if update.progress.status != RunStatus::Running {
            break;
        }
    }
    tokio::time::sleep(Duration::from_millis(100)).await;
    let run = store.get_run(workspace.id, run.id).await.unwrap();
    assert_eq!(run.status, RunStatus::Completed, "{:?}", run.failure);
    row("run finished", u64::from(iterations), started);
    let results = store.run_iterations(workspace.id, run.id).await.unwrap();
    assert_eq!(results.len(), iterations as usize);
    let (report, _) = snapshot(&run, results);
    let json = serde_json::to_vec(&report).unwrap();
    row("report built", u64::from(iterations), started);
    println!(
        "\nreport snapshot: {} iterations, {:.1} MiB of JSON",
        report.results.len(),
        json.len() as f64 / 1048576.0
    );
}
