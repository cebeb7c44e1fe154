//! Measurement-engine benchmarks against the simulator in its own process, on loopback.
//!
//! 1. TTFT overhead: measured TTFT − the simulator's own time from receiving the request to writing its first
//!    content chunk, median and p99, at concurrency 1, 64, 256 and 1,000 (simulator TTFT 50 ms, inter-token 2 ms,
//!    64 tokens). The overhead is everything the engine adds to what the server did: both loopback transits,
//!    the HTTP stack, SSE decoding and chunk parsing.
//! 2. Throughput: completed streams per second with 16 tokens and no delays, and the engine's CPU time per
//!    1,000 chunks.
//!
//! The simulator runs on core 1 and this process on core 0 when `taskset` is available.
//! Run: `cargo bench --bench engine --no-default-features --features ssr`.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a broken benchmark should stop loudly")]

mod support;

use latency_guard::engine::{measure, Call, ChatMessage, ChatRequest, HttpClient, RequestTarget, StreamOptions};
use latency_guard::model::{BaseUrl, Job, LoadMode, Measurement};
use latency_guard::runs::{drive, Finished};
use latency_guard::stats::percentile;
use std::collections::BTreeMap;
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};
use support::{simulator, Simulator};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// User + system CPU seconds of a process so far (`self` or a pid).
fn cpu_seconds_of(pid: &str) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let fields: Vec<&str> = stat.rsplit(')').next().unwrap_or_default().split_whitespace().collect();
    let ticks: f64 = fields.get(11..13).map_or(0.0, |f| f.iter().filter_map(|v| v.parse::<f64>().ok()).sum());
    ticks / 100.0
}

fn cpu_seconds() -> f64 {
    cpu_seconds_of("self")
}

struct Level {
    wall: Duration,
    cpu: f64,
    sim_cpu: f64,
    /// Each stream's send sequence number and measurement.
    results: Vec<(u64, Measurement)>,
}

async fn run_level(client: &HttpClient, sim: &Simulator, concurrency: u32, streams: u64, tokens: u32) -> Level {
    let base = &sim.base_url;
    let sim_pid = sim.child.id().to_string();
    let target =
        Arc::new(RequestTarget { base_url: BaseUrl::parse(base).unwrap(), api_key: None, headers: BTreeMap::new() });
    let request = Arc::new(ChatRequest {
        model: "sim-model".into(),
        messages: vec![ChatMessage { role: "user", content: "benchmark".into() }],
        tools: vec![],
        max_tokens: tokens,
        temperature: 0.0,
        stream: true,
        stream_options: Some(StreamOptions { include_usage: true }),
    });
    let jobs = (0..streams).map(|seq| Job { seq, prompt_index: 0, iteration: seq as u32, warmup: false });
    let (tx, mut rx) = mpsc::channel::<Finished>(4_096);
    let client = client.clone();
    let executor = move |_job: Job, intended| {
        let (client, target, request) = (client.clone(), Arc::clone(&target), Arc::clone(&request));
        async move {
            let call = Call { target: &target, request: &request, timeout: Duration::from_secs(60), intended };
            measure(&client, call).await
        }
    };
    let (cpu0, sim_cpu0, start) = (cpu_seconds(), cpu_seconds_of(&sim_pid), Instant::now());
    let driver =
        tokio::spawn(drive(jobs, LoadMode::Closed { concurrency }, None, 1, CancellationToken::new(), tx, executor));
    let mut results = Vec::with_capacity(streams as usize);
    while let Some(f) = rx.recv().await {
        results.push((f.job.seq, f.measurement));
    }
    driver.await.unwrap();
    let wall = start.elapsed();
    Level { wall, cpu: cpu_seconds() - cpu0, sim_cpu: cpu_seconds_of(&sim_pid) - sim_cpu0, results }
}

/// Overhead of each successful stream sent after the first `skip`, sorted.
fn overheads(level: &Level, skip: u64) -> Vec<f64> {
    let mut overhead: Vec<f64> = level
        .results
        .iter()
        .filter(|(seq, m)| *seq >= skip && m.error.is_none())
        .filter_map(|(_, m)| Some(m.ttft_ms()? - m.server_timing?.time_to_first_output_ms()?))
        .collect();
    overhead.sort_by(f64::total_cmp);
    overhead
}

fn describe(level: &Level, concurrency: u32) -> String {
    let failed = level.results.iter().filter(|(_, m)| m.error.is_some()).count();
    let chunks: usize = level.results.iter().map(|(_, m)| m.timeline.chunks.len()).sum();
    // The first round starts all its streams in the same instant, so their first tokens are due in the same
    // instant too and queue behind each other (and behind connection set-up): reported apart from the rest.
    let (steady, all) = (overheads(level, u64::from(concurrency)), overheads(level, 0));
    let at = |values: &[f64], p| percentile(values, p).unwrap_or(f64::NAN);
    format!(
        "| {concurrency:>5} | {:>6} | {failed:>3} | {:>7.3} | {:>7.3} | {:>7.3} | {:>8.0} | {:>6.1} | {:>4.0}% | {:>4.0}% |",
        level.results.len(),
        at(&steady, 50.0),
        at(&steady, 99.0),
        at(&all, 99.0),
        level.results.len() as f64 / level.wall.as_secs_f64(),
        level.cpu * 1e6 / chunks.max(1) as f64,
        level.cpu / level.wall.as_secs_f64() * 100.0,
        level.sim_cpu / level.wall.as_secs_f64() * 100.0,
    )
}

fn print_header() {
    println!(
        "| conc. | streams | failed | overhead p50 ms (after round 1) | overhead p99 ms (after round 1) | \
         overhead p99 ms (all) | streams/s | engine CPU ms per 1000 chunks | engine core busy | simulator core busy |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let _ = Command::new("taskset").args(["-cp", "0", &std::process::id().to_string()]).output();
    let client = HttpClient::new().unwrap();

    println!("1. TTFT overhead (simulator: TTFT 50 ms, inter-token 2 ms, 64 tokens)");
    print_header();
    // `cargo bench --bench engine -- 64 256` runs only those concurrency levels.
    let only: Vec<u32> = std::env::args().filter_map(|a| a.parse().ok()).collect();
    let chosen = |c: &u32| only.is_empty() || only.contains(c);
    let sim = simulator(Some("1"), &["--ttft-ms", "50", "--itl-ms", "2", "--tokens", "64"]);
    for (concurrency, streams) in [(1, 200), (64, 1_280), (256, 2_560), (1_000, 5_000)] {
        if !chosen(&concurrency) {
            continue;
        }
        let level = run_level(&client, &sim, concurrency, streams, 64).await;
        println!("{}", describe(&level, concurrency));
    }
    drop(sim);

    println!("\n2. Throughput (simulator: no delays, 16 tokens)");
    print_header();
    let sim = simulator(Some("1"), &["--ttft-ms", "0", "--itl-ms", "0", "--tokens", "16"]);
    for concurrency in [8, 32, 128] {
        if !chosen(&concurrency) {
            continue;
        }
        let level = run_level(&client, &sim, concurrency, 20_000, 16).await;
        println!("{}", describe(&level, concurrency));
    }
}
