//! Measurement-engine benchmarks against the simulator in its own process, on loopback.
//!
//! 1. TTFT overhead: measured TTFT − the simulator's own time from receiving the request (when it reached its
//!    socket, by the kernel's stamp) to making its first content chunk, median and p99, at concurrency 1, 64, 256
//!    and 1,000 (simulator TTFT 50 ms, inter-token 2 ms, 64 tokens). The overhead is everything the engine adds to
//!    what the server did: both loopback transits, the HTTP stack, SSE decoding and chunk parsing. It is split in
//!    its two halves on this machine's real-time clock: from the engine's hand-off of the request to its arrival
//!    at the simulator, and from the simulator's first chunk to its arrival at the engine (which includes the
//!    simulator's own wait between making the chunk and writing it).
//! 2. Throughput: completed streams per second with 16 tokens and no delays, and the engine's CPU time per
//!    1,000 chunks.
//! 3. Where the first round's tail comes from: the overhead of a first round (every stream sent in the same instant)
//!    on a fresh client, where each stream opens its connection, beside the first round of table 1, whose
//!    connections were opened before it as a run opens them (`engine::open_connections`).
//!
//! Every level of table 1 starts on a fresh client and opens its connections first, as a closed-loop run does, and
//! its "all" column counts every stream, the first round's included. The 1,000-stream level runs against a
//! simulator pacing tokens [`SLOW_ITL_MS`] apart, a load its one core keeps up with: each chunk costs it a write
//! through loopback TCP (about 19 µs with HTTP, most of it the kernel's), so 20 ms apart (50,000 chunks a second)
//! held its core 95–98 % busy and put its own queueing into the overhead, and 40 ms apart 70–72 % on a slower
//! machine; 50 ms apart keeps it near 55 %. Its "open" column is the mean number of
//! streams in flight (Little's law: the streams' summed durations over the wall time), and "stream ms" the mean
//! time from send to end of stream, which a simulator keeping its schedule holds at TTFT + 63 gaps (176 ms at
//! 2 ms, 3,200 ms at 50 ms): a late simulator shows as longer streams and fewer streams per second. The
//! simulator's core busy column is real work: its timer waits on the kernel, it does not spin.
//!
//! The simulator runs on core 1 and this process on core 0 when `taskset` is available.
//! Run: `cargo bench --bench engine --no-default-features --features ssr`.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a broken benchmark should stop loudly")]

mod support;

use latency_guard::engine::{
    measure, open_connections, Call, ChatMessage, ChatRequest, HttpClient, RequestTarget, StreamOptions,
};
use latency_guard::model::{BaseUrl, Job, LoadMode, Measurement, Session};
use latency_guard::runs::service::{drive, Finished, Pacing};
use latency_guard::stats::percentile;
use std::collections::BTreeMap;
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};
use support::{simulator, Simulator};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// One level's figures as `docs/PERFORMANCE.md` holds them today (Measurement engine, the latest table there),
/// printed beside each new row so that a regression shows in one run. They are one machine's: compare on the
/// same kind of machine, or run the client race (`benches/client_race.rs`) for ratios against a build.
struct Today {
    concurrency: u32,
    /// Streams in flight, mean.
    open: f64,
    /// Completed streams a second.
    per_second: f64,
    /// Overhead after round 1, ms.
    p50_ms: f64,
    p99_ms: f64,
}

const TODAY: &[Today] = &[
    Today { concurrency: 1, open: 1.0, per_second: 6.0, p50_ms: 0.097, p99_ms: 0.208 },
    Today { concurrency: 64, open: 64.0, per_second: 362.0, p50_ms: 0.013, p99_ms: 0.073 },
    Today { concurrency: 256, open: 253.0, per_second: 1_399.0, p50_ms: 0.017, p99_ms: 0.048 },
    Today { concurrency: 1_000, open: 994.0, per_second: 310.0, p50_ms: 0.016, p99_ms: 0.050 },
    Today { concurrency: 8, open: 7.0, per_second: 12_755.0, p50_ms: 0.043, p99_ms: 0.085 },
    Today { concurrency: 32, open: 31.0, per_second: 11_965.0, p50_ms: 0.035, p99_ms: 0.072 },
    Today { concurrency: 128, open: 123.0, per_second: 12_454.0, p50_ms: 0.052, p99_ms: 0.095 },
];

/// `open / streams/s / p50 / p99` of today's figures at `concurrency`.
fn today(concurrency: u32) -> String {
    TODAY.iter().find(|t| t.concurrency == concurrency).map_or_else(
        || "—".to_string(),
        |t| format!("{:.0} / {:.0} / {:.3} / {:.3}", t.open, t.per_second, t.p50_ms, t.p99_ms),
    )
}

/// Tokens apart at the 1,000-stream level, ms.
const SLOW_ITL_MS: &str = "50";

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
    /// Each stream's send sequence number, measurement, and when it was handed to the client (unix µs).
    results: Vec<(u64, Measurement, u64)>,
}

/// Unix µs of monotonic instants, from one reading of both clocks.
struct WallClock {
    unix_us: u64,
    at: tokio::time::Instant,
}

impl WallClock {
    fn now() -> Self {
        let unix_us = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_micros();
        Self { unix_us: unix_us as u64, at: tokio::time::Instant::now() }
    }

    fn unix_us(&self, at: tokio::time::Instant) -> u64 {
        (self.unix_us + at.saturating_duration_since(self.at).as_micros() as u64)
            .saturating_sub(self.at.saturating_duration_since(at).as_micros() as u64)
    }
}

fn target_of(sim: &Simulator) -> RequestTarget {
    RequestTarget {
        base_url: BaseUrl::parse(&sim.base_url).unwrap(),
        api_key: None,
        headers: BTreeMap::new(),
        reach: latency_guard::outbound::Reach::Anywhere,
    }
}

/// A fresh client with `concurrency` connections to the simulator opened, as a closed-loop run opens them.
async fn client_with_connections(sim: &Simulator, concurrency: u32) -> HttpClient {
    let client = HttpClient::new().unwrap();
    let opened = open_connections(&client, &target_of(sim), concurrency, Duration::from_secs(10)).await;
    assert_eq!(opened.kept, concurrency, "every connection opened ahead");
    client
}

async fn run_level(client: &HttpClient, sim: &Simulator, concurrency: u32, streams: u64, tokens: u32) -> Level {
    let sim_pid = sim.child.id().to_string();
    let target = Arc::new(target_of(sim));
    let request = Arc::new(ChatRequest {
        model: "sim-model".into(),
        messages: vec![ChatMessage { role: "user", content: "benchmark".into() }],
        tools: vec![],
        max_tokens: tokens,
        temperature: 0.0,
        stream: true,
        stream_options: Some(StreamOptions { include_usage: true }),
        ignore_eos: false,
        keep_answer: false,
    });
    let jobs = (0..streams)
        .map(|seq| Session { first: Job { seq, prompt_index: 0, iteration: seq as u32, warmup: false }, turns: 1 });
    let (tx, mut rx) = mpsc::channel::<Finished<u64>>(4_096);
    let client = client.clone();
    let clock = Arc::new(WallClock::now());
    let executor = move |_job: Job, intended| {
        let (client, target, request, clock) =
            (client.clone(), Arc::clone(&target), Arc::clone(&request), Arc::clone(&clock));
        async move {
            let call = Call { target: &target, request: &request, timeout: Duration::from_secs(60), intended };
            let measurement = measure(&client, call).await;
            let handed_us = clock.unix_us(intended) + measurement.timeline.schedule_lag_us;
            (measurement, handed_us)
        }
    };
    let pacing = Pacing {
        mode: LoadMode::Closed { concurrency },
        limit: None,
        seed: 1,
        replay: None,
        shape: None,
        precise: true,
    };
    let no_think = |_| Duration::ZERO;
    let (cpu0, sim_cpu0, start) = (cpu_seconds(), cpu_seconds_of(&sim_pid), Instant::now());
    let driver = tokio::spawn(drive(jobs, pacing, CancellationToken::new(), tx, no_think, executor));
    let mut results = Vec::with_capacity(streams as usize);
    while let Some(f) = rx.recv().await {
        results.push((f.job.seq, f.measurement, f.sent));
    }
    driver.await.unwrap();
    let wall = start.elapsed();
    Level { wall, cpu: cpu_seconds() - cpu0, sim_cpu: cpu_seconds_of(&sim_pid) - sim_cpu0, results }
}

/// Overhead of each successful stream whose send sequence number `sent` keeps, sorted.
fn overheads(level: &Level, sent: impl Fn(u64) -> bool) -> Vec<f64> {
    let mut overhead: Vec<f64> = level
        .results
        .iter()
        .filter(|(seq, m, _)| sent(*seq) && m.error.is_none())
        .filter_map(|(_, m, _)| Some(m.ttft_ms()? - m.server_timing?.time_to_first_output_ms()?))
        .collect();
    overhead.sort_by(f64::total_cmp);
    overhead
}

/// The two halves of the overhead after round 1, ms (sorted): from the client's hand-off to the simulator's receipt
/// of the request, and from the simulator's first content chunk to its arrival at the client. Both clocks are this
/// machine's real-time clock.
fn halves(level: &Level, concurrency: u32) -> (Vec<f64>, Vec<f64>) {
    let (mut inbound, mut outbound) = (Vec::new(), Vec::new());
    for (_, m, handed_us) in
        level.results.iter().filter(|(seq, m, _)| *seq >= u64::from(concurrency) && m.error.is_none())
    {
        let (Some(server), Some(first_us)) = (m.server_timing, m.timeline.first_token_us) else { continue };
        let Some(sent_us) = server.first_output_sent_us else { continue };
        inbound.push((server.received_us as f64 - *handed_us as f64) / 1e3);
        outbound.push(((handed_us + first_us) as f64 - sent_us as f64) / 1e3);
    }
    inbound.sort_by(f64::total_cmp);
    outbound.sort_by(f64::total_cmp);
    (inbound, outbound)
}

/// How late the simulator made each first chunk against its own schedule after round 1 (its time from receipt to
/// first chunk − the `asked_ms` it was asked for), ms, sorted: a benchmark that takes the schedule for granted (the client
/// race: measured − 50 ms) charges this to the client.
fn simulator_lateness(level: &Level, concurrency: u32, asked_ms: f64) -> Vec<f64> {
    let mut late: Vec<f64> = level
        .results
        .iter()
        .filter(|(seq, m, _)| *seq >= u64::from(concurrency) && m.error.is_none())
        .filter_map(|(_, m, _)| Some(m.server_timing?.time_to_first_output_ms()? - asked_ms))
        .collect();
    late.sort_by(f64::total_cmp);
    late
}

/// `p50 / p99 / max` of sorted values, ms.
fn spread(values: &[f64]) -> String {
    let at = |p| percentile(values, p).unwrap_or(f64::NAN);
    format!("{:.3} / {:.3} / {:.3}", at(50.0), at(99.0), at(100.0))
}

/// A row of a table; `asked_ttft_ms` is the simulator's configured time to first token.
fn describe(level: &Level, concurrency: u32, asked_ttft_ms: f64) -> String {
    let failed = level.results.iter().filter(|(_, m, _)| m.error.is_some()).count();
    let chunks: usize = level.results.iter().map(|(_, m, _)| m.timeline.chunks.len()).sum();
    // The first round starts all its streams in the same instant, so their first tokens are due in the same
    // instant too and queue behind each other (and behind connection set-up): reported apart from the rest.
    let (steady, all) = (overheads(level, |seq| seq >= u64::from(concurrency)), overheads(level, |_| true));
    let at = |values: &[f64], p| percentile(values, p).unwrap_or(f64::NAN);
    let busy_ms: f64 = level.results.iter().map(|(_, m, _)| m.total_ms()).sum();
    let (inbound, outbound) = halves(level, concurrency);
    let late = simulator_lateness(level, concurrency, asked_ttft_ms);
    let lateness = match late.is_empty() {
        true => "—".to_string(),
        false => format!("{:.3} / {:.3}", at(&late, 50.0), at(&late, 99.0)),
    };
    let open = busy_ms / (level.wall.as_secs_f64() * 1e3);
    let mean_stream_ms = busy_ms / level.results.len().max(1) as f64;
    format!(
        "| {concurrency:>5} | {:>6} | {failed:>3} | {open:>6.0} | {mean_stream_ms:>8.1} | {:>7.3} | {:>7.3} | {:>6.3} / {:>6.3} | {:>6.3} / {:>6.3} | {:>7.3} | {:>8.0} | {:>6.1} | {:>4.0}% | {:>4.0}% | {lateness} | {} |",
        level.results.len(),
        at(&steady, 50.0),
        at(&steady, 99.0),
        at(&inbound, 50.0),
        at(&inbound, 99.0),
        at(&outbound, 50.0),
        at(&outbound, 99.0),
        at(&all, 99.0),
        level.results.len() as f64 / level.wall.as_secs_f64(),
        level.cpu * 1e6 / chunks.max(1) as f64,
        level.cpu / level.wall.as_secs_f64() * 100.0,
        level.sim_cpu / level.wall.as_secs_f64() * 100.0,
        today(concurrency),
    )
}

fn print_header() {
    println!(
        "| conc. | streams | failed | open (mean) | stream ms (mean) | overhead p50 ms (after round 1) | overhead p99 ms (after round 1) | \
         of it, request to simulator p50 / p99 | of it, first chunk to client p50 / p99 | overhead p99 ms (all) | streams/s | engine CPU ms per 1000 chunks | engine core busy | simulator core busy | \
         simulator's first chunk late p50 / p99 ms | today: open / streams/s / overhead p50 / p99 |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let _ = Command::new("taskset").args(["-cp", "0", &std::process::id().to_string()]).output();
    let client = HttpClient::new().unwrap();

    println!(
        "1. TTFT overhead (simulator: TTFT 50 ms, inter-token 2 ms, 64 tokens; at 1,000 streams {SLOW_ITL_MS} ms)"
    );
    print_header();
    // `cargo bench --bench engine -- 64 256` runs only those concurrency levels.
    let only: Vec<u32> = std::env::args().filter_map(|a| a.parse().ok()).collect();
    let chosen = |c: &u32| only.is_empty() || only.contains(c);
    let paced = simulator(Some("1"), &["--ttft-ms", "50", "--itl-ms", "2", "--tokens", "64"]);
    let slow = simulator(Some("1"), &["--ttft-ms", "50", "--itl-ms", SLOW_ITL_MS, "--tokens", "64"]);
    let mut first_rounds = Vec::new();
    for (concurrency, streams, sim) in
        [(1, 200, &paced), (64, 1_280, &paced), (256, 2_560, &paced), (1_000, 5_000, &slow)]
    {
        if !chosen(&concurrency) {
            continue;
        }
        let client = client_with_connections(sim, concurrency).await;
        let level = run_level(&client, sim, concurrency, streams, 64).await;
        println!("{}", describe(&level, concurrency, 50.0));
        // The same first round on a fresh client whose streams each open their connection, as before runs
        // opened them ahead.
        let opening = run_level(&HttpClient::new().unwrap(), sim, concurrency, u64::from(concurrency), 64).await;
        let first_round = |level: &Level| overheads(level, |seq| seq < u64::from(concurrency));
        first_rounds.push((concurrency, first_round(&opening), first_round(&level)));
    }
    drop((paced, slow));

    if !first_rounds.is_empty() {
        println!("\n3. The first round's overhead, ms (p50 / p99 / max): each stream opening its connection, or opened ahead");
        println!("| conc. | first round, each stream opens its connection | first round, connections opened ahead (runs do this) |");
        println!("|---|---|---|");
        for (concurrency, opening, opened) in &first_rounds {
            println!("| {concurrency:>5} | {} | {} |", spread(opening), spread(opened));
        }
    }

    println!("\n2. Throughput (simulator: no delays, 16 tokens)");
    print_header();
    let sim = simulator(Some("1"), &["--ttft-ms", "0", "--itl-ms", "0", "--tokens", "16"]);
    for concurrency in [8, 32, 128] {
        if !chosen(&concurrency) {
            continue;
        }
        let level = run_level(&client, &sim, concurrency, 20_000, 16).await;
        println!("{}", describe(&level, concurrency, 0.0));
    }
}
