//! Memory of `latency-guard bench` over a long run at full speed: `bench --duration S -c 64` against the simulator
//! (its own process, no delays, 16 tokens), its resident memory (`VmRSS`) and peak (`VmHWM`) read from `/proc`
//! every second until it exits, then the size of the snapshot it wrote. A bench process that kept every record
//! in memory grows with the run; one that spills them to disk stays flat until the report is made at the end.
//!
//! Run: `cargo bench --bench bench_memory --no-default-features --features ssr` (`LG_BENCH_SECONDS`, default 20).

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a broken benchmark should stop loudly")]

mod support;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn main() {
    let seconds = std::env::var("LG_BENCH_SECONDS").unwrap_or_else(|_| "20".into());
    let sim = support::simulator(None, &["--ttft-ms", "0", "--itl-ms", "0", "--tokens", "16"]);
    let out = tempfile::NamedTempFile::new().unwrap();
    let path = out.path().to_str().unwrap().to_string();
    let args =
        ["bench", "--base-url", &sim.base_url, "--model", "m", "--prompt", "hi", "-c", "64", "--duration", &seconds];
    let started = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_latency-guard"))
        .args(args)
        .args(["--out", &path])
        .env("RUST_LOG", "warn")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    println!("| seconds | RSS MiB | peak RSS MiB |");
    println!("|---|---|---|");
    let (mut peak, mut next_print) = (0.0f64, 0.0);
    while child.try_wait().unwrap().is_none() {
        if let Some((rss, hwm)) = support::memory_mib(child.id()) {
            peak = peak.max(hwm);
            let t = started.elapsed().as_secs_f64();
            if t >= next_print {
                println!("| {t:.1} | {rss:.1} | {hwm:.1} |");
                next_print += 2.0;
            }
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let wall = started.elapsed().as_secs_f64();
    let bytes = std::fs::metadata(out.path()).unwrap().len();
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(out.path()).unwrap()).unwrap();
    let results = report["results"].as_array().map_or(0, Vec::len);
    println!();
    println!(
        "bench --duration {seconds} -c 64: {results} iterations in {wall:.1} s, peak RSS {peak:.1} MiB, snapshot {:.1} MB",
        bytes as f64 / 1e6
    );
}
