//! Peak memory of `latency-guard bench` against each hostile endpoint of the catalogue (`docs/RELIABILITY.md`),
//! beside a well-behaved simulator as the baseline. Each endpoint runs as its own process
//! (`latency-guard sim --hostile KIND`) and so does each measuring `bench`, whose peak resident memory (`VmHWM`)
//! is read from `/proc` until it exits: only the engine's memory is counted, 8 requests in flight at once (64
//! requests for the endpoints that fail at once, so that the process lives long enough to be sampled).
//!
//! Run: `cargo bench --bench hostile_memory --no-default-features --features ssr`.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a broken benchmark should stop loudly")]

mod support;

use latency_guard::sim::Hostile;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Requests in flight at once.
const IN_FLIGHT: &str = "8";

/// The peak resident memory of process `pid` so far, MiB; `None` once it is gone.
fn peak_mib(pid: u32) -> Option<f64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let kib: f64 =
        status.lines().find_map(|l| l.strip_prefix("VmHWM:")?.trim().strip_suffix(" kB")?.trim().parse().ok())?;
    Some(kib / 1024.0)
}

/// Runs `bench` against `base_url`; returns (peak MiB, seconds, the iterations' error codes).
fn measure(base_url: &str, stream: bool, timeout_s: &str, requests: &str) -> (f64, f64, String) {
    let out = tempfile::NamedTempFile::new().unwrap();
    let mut args = vec![
        "bench",
        "--base-url",
        base_url,
        "--model",
        "m",
        "--prompt",
        "hi",
        "-n",
        requests,
        "-c",
        IN_FLIGHT,
        "--timeout",
        timeout_s,
        "--max-tokens",
        "64",
        "--out",
    ];
    let path = out.path().to_str().unwrap().to_string();
    args.push(&path);
    if !stream {
        args.push("--no-stream");
    }
    let started = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_latency-guard"))
        .args(&args)
        .env("RUST_LOG", "warn")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut peak = 0.0f64;
    while child.try_wait().unwrap().is_none() {
        if let Some(mib) = peak_mib(child.id()) {
            peak = peak.max(mib);
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    let seconds = started.elapsed().as_secs_f64();
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(out.path()).unwrap()).unwrap();
    let mut codes: Vec<String> = report["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["error"].as_str().map_or("ok", |e| e.split(':').next().unwrap_or(e)).to_string())
        .collect();
    codes.sort();
    codes.dedup();
    (peak, seconds, codes.join(", "))
}

fn main() {
    println!("| endpoint | requests ({IN_FLIGHT} in flight) | outcome | time | peak memory of `bench` |");
    println!("|---|---|---|---|---|");
    let baseline = support::simulator(None, &["--ttft-ms", "5", "--itl-ms", "1", "--tokens", "64"]);
    let (peak, seconds, codes) = measure(&baseline.base_url, true, "10", "64");
    println!("| simulator (well-behaved, baseline) | 64 | {codes} | {seconds:.1} s | {peak:.1} MiB |");
    drop(baseline);
    for (name, kind) in Hostile::ALL {
        let (stream, timeout, requests) = match kind {
            Hostile::GiantBody => (false, "30", "64"),
            Hostile::HangBeforeHeaders | Hostile::HangMidStream | Hostile::EndlessStream => (true, "3", "8"),
            Hostile::Flood | Hostile::Drip => (true, "30", "8"),
            _ => (true, "30", "64"),
        };
        let endpoint = support::simulator(None, &["--hostile", name]);
        let (peak, seconds, codes) = measure(&endpoint.base_url, stream, timeout, requests);
        let mode = if stream { "" } else { " (not streamed)" };
        println!("| `{name}`{mode} | {requests} | {codes} | {seconds:.1} s | {peak:.1} MiB |");
    }
}
