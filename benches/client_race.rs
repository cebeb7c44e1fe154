//! `latency-guard bench` as a user runs it, this build beside a baseline build, level by level in one run on the
//! same machine: how many streams really stay open, how many complete a second, the TTFT the client adds, and its
//! CPU per request. Each client runs on core 0 (`taskset`), a simulator on core 1; the two builds take turns at
//! every level (the baseline first in odd rounds), so drift in the machine hits both alike, and the table gives
//! both figures and their ratio.
//!
//! The baseline is another build's binary, named by `LG_BASELINE_BIN`; build it from a commit with
//! `git worktree add /tmp/lg-baseline COMMIT && cargo build --release --no-default-features --features ssr --bin
//! latency-guard --manifest-path /tmp/lg-baseline/Cargo.toml --target-dir target/baseline`.
//! Run: `LG_BASELINE_BIN=target/baseline/release/latency-guard cargo bench --bench client_race --no-default-features
//! --features ssr` (`-- 1000` runs only the levels of that many streams).
//!
//! Figures, each from the run's own `--out` snapshot (measured requests only):
//! - **open**: the mean number of requests in flight over the run (their summed send → end times over the span from
//!   the first send to the last end; Little's law) and the most at once;
//! - **streams/s**: completed requests over that span;
//! - **added TTFT**: measured TTFT − the simulator's TTFT (a fixed 50 ms from when the request reached its socket;
//!   the simulator's own error, +0.4–0.6 ms at the median (`sim_accuracy`), is in both builds' figures alike, and so
//!   is its lateness when many first chunks fall due together: one core writes 1,000 of them in turn);
//! - **client's own**: each request's measured first output − the simulator's own time to it, as the simulator
//!   reported it (`serverFirstOutputMs`), which leaves its lateness out: what the client and loopback added. Only a
//!   build that records that field gives it ("—" for an older baseline);
//! - **CPU per request**: the client process's user + system CPU over the run, start-up and report included;
//! - **stream ms**: the mean send → end of stream, which a simulator keeping its schedule holds at TTFT + 63 gaps
//!   (176 ms at 2 ms, 3,200 ms at 50 ms): a late simulator shows as longer streams;
//! - the simulator's core busy share: its work (its timer waits on the kernel), so the 1,000-stream level paces
//!   tokens 50 ms apart, where it stays under 70 % busy (20 ms apart it was 95 % and the level measured it; 40 ms
//!   apart 70–72 % on a slower machine).

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a broken benchmark should stop loudly")]

mod support;

use std::process::Command;
use std::time::Instant;

use latency_guard::stats::percentile;
use support::{simulator, Simulator};

/// The simulator's time to first token, ms, in the latency levels.
const SIM_TTFT_MS: f64 = 50.0;

/// User + system CPU seconds of process `pid` (`self` or a number) so far; with `children`, of its waited-for
/// children instead.
fn cpu_seconds(pid: &str, children: bool) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let fields: Vec<&str> = stat.rsplit(')').next().unwrap_or_default().split_whitespace().collect();
    let at = if children { 13..15 } else { 11..13 };
    fields.get(at).map_or(0.0, |f| f.iter().filter_map(|v| v.parse::<f64>().ok()).sum()) / 100.0
}

/// What one client run measured.
struct Measured {
    open_mean: f64,
    open_max: usize,
    streams_per_s: f64,
    /// Added TTFT, ms, sorted.
    added: Vec<f64>,
    /// Each request's first output − the simulator's own time to it, ms, sorted; empty when the build does not
    /// record the simulator's time.
    own: Vec<f64>,
    cpu_ms_per_request: f64,
    sim_busy: f64,
    /// Mean send → end of stream, ms: a simulator keeping its schedule holds it at TTFT + 63 gaps.
    stream_ms: f64,
    failed: usize,
}

/// A level: how many streams, how long, against which simulator.
struct Level<'a> {
    name: &'static str,
    concurrency: u32,
    seconds: u32,
    tokens: u32,
    sim: &'a Simulator,
    /// Whether TTFT is the simulator's fixed 50 ms (the latency levels).
    timed: bool,
}

/// Runs `binary bench` for `level` on core 0; what its snapshot says.
fn run(binary: &str, level: &Level) -> Measured {
    let out = std::env::temp_dir().join(format!("client-race-{}-{}.json", std::process::id(), level.concurrency));
    let sim_pid = level.sim.child.id().to_string();
    let (children0, sim0, start) = (cpu_seconds("self", true), cpu_seconds(&sim_pid, false), Instant::now());
    let ran = Command::new("taskset")
        .args(["-c", "0", binary, "bench", "--base-url", &level.sim.base_url, "--model", "sim-model", "--prompt", "hi"])
        .args(["-c", &level.concurrency.to_string(), "--duration", &level.seconds.to_string(), "-n", "1000000"])
        .args(["--max-tokens", &level.tokens.to_string(), "--allow-invalid", "--out"])
        .arg(&out)
        .output()
        .expect("taskset and the client run");
    let said = String::from_utf8_lossy(&ran.stderr);
    assert!(ran.status.success(), "{binary} bench failed at {} streams ({}): {said}", level.concurrency, ran.status);
    let (cpu, sim_cpu, wall) =
        (cpu_seconds("self", true) - children0, cpu_seconds(&sim_pid, false) - sim0, start.elapsed().as_secs_f64());
    let snapshot: serde_json::Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    let _ = std::fs::remove_file(&out);
    let results: Vec<&serde_json::Value> =
        snapshot["results"].as_array().unwrap().iter().filter(|r| r["warmup"] != true).collect();
    let f = |r: &serde_json::Value, key: &str| r[key].as_f64();
    let spans: Vec<(f64, f64)> =
        results.iter().filter_map(|r| Some((f(r, "sentAtMs")?, f(r, "sentAtMs")? + f(r, "totalMs")?))).collect();
    let first = spans.iter().map(|s| s.0).fold(f64::INFINITY, f64::min);
    let last = spans.iter().map(|s| s.1).fold(f64::NEG_INFINITY, f64::max);
    let busy: f64 = spans.iter().map(|(a, b)| b - a).sum();
    let mut edges: Vec<(f64, i32)> = spans.iter().flat_map(|&(a, b)| [(a, 1), (b, -1)]).collect();
    edges.sort_by(|x, y| x.0.total_cmp(&y.0).then(x.1.cmp(&y.1)));
    let (mut open, mut open_max) = (0i32, 0i32);
    for (_, step) in edges {
        open += step;
        open_max = open_max.max(open);
    }
    let mut added: Vec<f64> = results.iter().filter_map(|r| Some(f(r, "ttftMs")? - SIM_TTFT_MS)).collect();
    added.sort_by(f64::total_cmp);
    let mut own: Vec<f64> = results
        .iter()
        .filter(|r| r["error"].is_null())
        .filter_map(|r| Some(f(r, "firstOutputMs")? - f(r, "serverFirstOutputMs")?))
        .collect();
    own.sort_by(f64::total_cmp);
    Measured {
        open_mean: busy / (last - first),
        open_max: open_max as usize,
        streams_per_s: spans.len() as f64 / ((last - first) / 1e3),
        added,
        own,
        cpu_ms_per_request: cpu * 1e3 / results.len().max(1) as f64,
        sim_busy: sim_cpu / wall,
        stream_ms: busy / spans.len().max(1) as f64,
        failed: results.iter().filter(|r| !r["error"].is_null()).count(),
    }
}

fn main() {
    let baseline = std::env::var("LG_BASELINE_BIN").expect(
        "LG_BASELINE_BIN names the baseline build's latency-guard binary (see the header of benches/client_race.rs)",
    );
    let current = env!("CARGO_BIN_EXE_latency-guard");
    let only: Vec<u32> = std::env::args().filter_map(|a| a.parse().ok()).collect();
    let rounds: u32 = std::env::var("LG_RACE_ROUNDS").ok().and_then(|r| r.parse().ok()).unwrap_or(2);
    // The simulators: 64 tokens 2 ms apart after 50 ms (the latency levels), the same 50 ms apart (1,000 streams,
    // which one simulator core keeps on time, under 70 % busy), 16 tokens with no delay (throughput).
    let paced = simulator(Some("1"), &["--ttft-ms", "50", "--itl-ms", "2", "--tokens", "64"]);
    let slow = simulator(Some("1"), &["--ttft-ms", "50", "--itl-ms", "50", "--tokens", "64"]);
    let fast = simulator(Some("1"), &["--ttft-ms", "0", "--itl-ms", "0", "--tokens", "16"]);
    let level =
        |name, concurrency, seconds, tokens, sim, timed| Level { name, concurrency, seconds, tokens, sim, timed };
    let levels = [
        level("latency, tokens 2 ms apart", 1, 8, 64, &paced, true),
        level("latency, tokens 2 ms apart", 64, 8, 64, &paced, true),
        level("latency, tokens 2 ms apart", 256, 8, 64, &paced, true),
        level("1,000 streams, tokens 50 ms apart", 1_000, 16, 64, &slow, true),
        level("throughput, 16 tokens, no delay", 16, 6, 16, &fast, false),
        level("throughput, 16 tokens, no delay", 64, 6, 16, &fast, false),
        level("throughput, 16 tokens, no delay", 256, 6, 16, &fast, false),
    ];
    println!(
        "Client race: `latency-guard bench`, this build (new) beside {baseline} (base), {rounds} round(s) a level"
    );
    println!(
        "| level | streams | build | open mean / max | streams/s | added TTFT p50 / p99 ms | client's own p50 / p99 ms | CPU ms / request | failed | \
         stream ms (mean) | simulator core |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|");
    for level in levels.iter().filter(|l| only.is_empty() || only.contains(&l.concurrency)) {
        let mut runs: [Vec<Measured>; 2] = [Vec::new(), Vec::new()];
        for round in 0..rounds {
            let order = if round % 2 == 0 { [0, 1] } else { [1, 0] };
            for which in order {
                runs[which].push(run(if which == 0 { &baseline } else { current }, level));
            }
        }
        let mean =
            |runs: &[Measured], f: &dyn Fn(&Measured) -> f64| runs.iter().map(f).sum::<f64>() / runs.len() as f64;
        for (which, name) in [(0, "base"), (1, "new")] {
            let r = &runs[which];
            let at = |p| mean(r, &|m| percentile(&m.added, p).unwrap_or(f64::NAN));
            let ttft = if level.timed { format!("{:.2} / {:.2}", at(50.0), at(99.0)) } else { "—".into() };
            let own_at = |p| mean(r, &|m| percentile(&m.own, p).unwrap_or(f64::NAN));
            let own = match r.iter().all(|m| !m.own.is_empty()) {
                true => format!("{:.3} / {:.3}", own_at(50.0), own_at(99.0)),
                false => "—".into(),
            };
            println!(
                "| {} | {} | {name} | {:.0} / {} | {:.0} | {ttft} | {own} | {:.3} | {} | {:.1} | {:.0} % |",
                level.name,
                level.concurrency,
                mean(r, &|m| m.open_mean),
                r.iter().map(|m| m.open_max).max().unwrap_or(0),
                mean(r, &|m| m.streams_per_s),
                mean(r, &|m| m.cpu_ms_per_request),
                r.iter().map(|m| m.failed).sum::<usize>(),
                mean(r, &|m| m.stream_ms),
                mean(r, &|m| m.sim_busy) * 100.0,
            );
        }
        let ratio = |f: &dyn Fn(&Measured) -> f64| mean(&runs[1], f) / mean(&runs[0], f);
        println!(
            "| {} | {} | new ÷ base | {:.2}× open | {:.2}× | | | {:.2}× | | | |",
            level.name,
            level.concurrency,
            ratio(&|m| m.open_mean),
            ratio(&|m| m.streams_per_s),
            ratio(&|m| m.cpu_ms_per_request),
        );
    }
}
