//! Two workload benchmarks of `latency-guard bench` against the simulator (its own process, no delays):
//!
//! - `trace`: a Mooncake trace of 10,000 requests at 1,000 requests/s (a request every millisecond, 64-token
//!   prompts sharing one 32-token block in four, 4-token answers) replayed as recorded; the schedule lag each send
//!   had (p50, p99, max), from the report's rows, and the rate achieved. Target: p99 ≤ 1 ms.
//! - `dataset`: a JSONL dataset of 1,000,000 rows sent with `-c 64`; the bench process's resident memory read from
//!   `/proc` while it runs, and its peak at the end (when the report is made from every iteration).
//!
//! - `tokenizer`: a Mooncake trace at 25 requests/s (300 requests of 1,024–6,144 tokens in blocks of 512, some
//!   shared) whose prompts are cut offline with a tokenizer.json (the tiny test model's, written with the tests'
//!   Python) against the simulator without `/tokenize`; each send's schedule lag. Target: none over 5 ms.
//!
//! Run: `cargo bench --bench workload_replay --no-default-features --features ssr [-- trace|dataset|tokenizer]`
//! (`LG_REPLAY_REQUESTS`, `LG_DATASET_ROWS` to change the sizes).

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a broken benchmark should stop loudly")]

mod support;

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn size(name: &str, default: usize) -> usize {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// `values`' `p`-th percentile, numpy's linear method.
fn percentile(values: &mut [f64], p: f64) -> f64 {
    values.sort_by(f64::total_cmp);
    latency_guard::stats::percentile(values, p).unwrap_or(f64::NAN)
}

fn trace() {
    let requests = size("LG_REPLAY_REQUESTS", 10_000);
    let sim = support::simulator(None, &["--ttft-ms", "0", "--itl-ms", "0", "--tokens", "4"]);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("trace.jsonl");
    let mut file = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    for i in 0..requests {
        let row = format!(
            "{{\"timestamp\": {i}, \"input_length\": 64, \"output_length\": 4, \"hash_ids\": [{}, {}]}}",
            i % 4,
            1_000_000 + i
        );
        writeln!(file, "{row}").unwrap();
    }
    file.flush().unwrap();
    let out = dir.path().join("report.json");
    let workload = dir.path().join("replay.toml");
    std::fs::write(&workload, "kind = \"trace\"\nfile = \"trace.jsonl\"\nblockTokens = 32\n").unwrap();
    let started = Instant::now();
    let status = Command::new(env!("CARGO_BIN_EXE_latency-guard"))
        .args(["bench", "--base-url", &sim.base_url, "--model", "m", "--max-concurrency", "512"])
        .args(["--workload", workload.to_str().unwrap(), "--out", out.to_str().unwrap()])
        .env("RUST_LOG", "warn")
        .stdout(Stdio::null())
        .status()
        .unwrap();
    let wall = started.elapsed().as_secs_f64();
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let rows = report["results"].as_array().unwrap();
    let failed = rows.iter().filter(|r| !r["error"].is_null()).count();
    let mut lags: Vec<f64> = rows.iter().map(|r| r["scheduleLagMs"].as_f64().unwrap()).collect();
    let sent: Vec<f64> = rows.iter().filter_map(|r| r["sentAtMs"].as_f64()).collect();
    let span_s = (sent.iter().copied().fold(f64::MIN, f64::max) - sent.iter().copied().fold(f64::MAX, f64::min)) / 1e3;
    println!("| requests | rate asked | rate achieved | lag p50 ms | lag p99 ms | lag max ms | failed | wall s |");
    println!("|---|---|---|---|---|---|---|---|");
    println!(
        "| {} | 1000/s | {:.1}/s | {:.3} | {:.3} | {:.3} | {failed} | {wall:.1} |",
        rows.len(),
        (rows.len() - 1) as f64 / span_s,
        percentile(&mut lags, 50.0),
        percentile(&mut lags, 99.0),
        percentile(&mut lags, 100.0),
    );
    assert!(status.success(), "bench failed");
}

fn dataset() {
    let rows = size("LG_DATASET_ROWS", 1_000_000);
    let sim = support::simulator(None, &["--ttft-ms", "0", "--itl-ms", "0", "--tokens", "4"]);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("rows.jsonl");
    let mut file = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    for i in 0..rows {
        writeln!(file, "{{\"prompt\": \"row {i}: what is the capital of country number {i}?\", \"id\": {i}}}").unwrap();
    }
    file.flush().unwrap();
    let bytes = std::fs::metadata(&path).unwrap().len();
    let out = dir.path().join("report.json");
    let started = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_latency-guard"))
        .args(["bench", "--base-url", &sim.base_url, "--model", "m", "-c", "64"])
        .args(["--dataset", path.to_str().unwrap(), "--out", out.to_str().unwrap()])
        .env("RUST_LOG", "warn")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    println!("dataset: {rows} rows, {:.1} MB", bytes as f64 / 1e6);
    println!("| seconds | RSS MiB | peak RSS MiB |");
    println!("|---|---|---|");
    let mut next_print = 0.0;
    let mut last = (0.0, 0.0);
    while child.try_wait().unwrap().is_none() {
        if let Some(memory) = support::memory_mib(child.id()) {
            last = memory;
            let t = started.elapsed().as_secs_f64();
            if t >= next_print {
                println!("| {t:.1} | {:.1} | {:.1} |", memory.0, memory.1);
                next_print += 10.0;
            }
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let wall = started.elapsed().as_secs_f64();
    let snapshot = std::fs::metadata(&out).map(|m| m.len()).unwrap_or(0);
    println!();
    println!(
        "{rows} rows in {wall:.1} s ({:.0}/s); peak RSS {:.1} MiB (last read {:.1} MiB); snapshot {:.1} MB",
        rows as f64 / wall,
        last.1,
        last.0,
        snapshot as f64 / 1e6
    );
}

/// Writes the tiny test model's tokenizer.json into `dir` with the tests' Python (`LG_PYTHON`, else the project's
/// `target/test-python`, which `scripts/setup.sh --test` makes).
fn tiny_tokenizer_json(dir: &std::path::Path) -> std::path::PathBuf {
    let root = env!("CARGO_MANIFEST_DIR");
    let python = std::env::var("LG_PYTHON").unwrap_or_else(|_| format!("{root}/target/test-python/bin/python"));
    let status = Command::new(&python)
        .arg(format!("{root}/tests/support/tiny_gguf.py"))
        .arg(dir.join("model.gguf"))
        .status()
        .unwrap_or_else(|e| panic!("{python}: {e} (scripts/setup.sh --test installs the tests' Python)"));
    assert!(status.success(), "tiny_gguf.py failed");
    dir.join("tokenizer.json")
}

fn tokenizer() {
    let requests = size("LG_TOKENIZER_REQUESTS", 300);
    let most_blocks = size("LG_TOKENIZER_MAX_BLOCKS", 12);
    let sim = support::simulator(None, &["--ttft-ms", "0", "--itl-ms", "0", "--tokens", "4", "--no-tokenize"]);
    let dir = tempfile::tempdir().unwrap();
    let tokenizer = tiny_tokenizer_json(dir.path());
    let path = dir.path().join("trace.jsonl");
    let mut file = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    for i in 0..requests {
        // 2 to 12 blocks of 512 tokens (LG_TOKENIZER_MAX_BLOCKS), the first 0 to 3 of them shared by every request.
        let blocks = 2 + (i * 7) % (most_blocks - 1);
        let shared = (i * 3) % 4;
        let ids: Vec<String> = (0..blocks)
            .map(|b| if b < shared { b.to_string() } else { (1_000_000 + i * 16 + b).to_string() })
            .collect();
        let row = format!(
            "{{\"timestamp\": {}, \"input_length\": {}, \"output_length\": 4, \"hash_ids\": [{}]}}",
            i * 40,
            blocks * 512,
            ids.join(", ")
        );
        writeln!(file, "{row}").unwrap();
    }
    file.flush().unwrap();
    let out = dir.path().join("report.json");
    let status = Command::new(env!("CARGO_BIN_EXE_latency-guard"))
        .args(["bench", "--base-url", &sim.base_url, "--model", "m", "--max-concurrency", "64"])
        .args(["--trace", path.to_str().unwrap(), "--tokenizer", tokenizer.to_str().unwrap()])
        .args(["--out", out.to_str().unwrap()])
        .env("RUST_LOG", "warn")
        .stdout(Stdio::null())
        .status()
        .unwrap();
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let rows = report["results"].as_array().unwrap();
    let failed = rows.iter().filter(|r| !r["error"].is_null()).count();
    let lags: Vec<f64> = rows.iter().map(|r| r["scheduleLagMs"].as_f64().unwrap()).collect();
    let (worst, worst_lag) =
        lags.iter().copied().enumerate().max_by(|a, b| a.1.total_cmp(&b.1)).unwrap_or((0, f64::NAN));
    let over = lags.iter().filter(|&&lag| lag > 5.0).count();
    let mut sorted = lags.clone();
    println!("| requests | rate asked | lag p50 ms | lag p99 ms | lag max ms (row) | sends over 5 ms | failed |");
    println!("|---|---|---|---|---|---|---|");
    println!(
        "| {} | 25/s | {:.3} | {:.3} | {worst_lag:.3} ({}) | {over} | {failed} |",
        rows.len(),
        percentile(&mut sorted, 50.0),
        percentile(&mut sorted, 99.0),
        worst + 1,
    );
    assert!(status.success(), "bench failed");
}

fn main() {
    let which: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with('-')).collect();
    let wants = |name: &str| which.is_empty() || which.iter().any(|w| w == name);
    if wants("trace") {
        trace();
    }
    if wants("dataset") {
        dataset();
    }
    if wants("tokenizer") {
        tokenizer();
    }
}
