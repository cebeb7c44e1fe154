//! The verdict on a run's figures as `bench` gives it: printed first, kept first in `--out`, and exit status 3 when
//! the figures are invalid — a run too small for the percentile it is read at, an open loop that could not keep
//! its schedule, and a load generator with no CPU to spare (the real binary, pinned to one core).
#![cfg(feature = "ssr")]
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a failing test should panic loudly")]

use crate::common;

use latency_guard::sim::{self, Delay, SimConfig};
use serde_json::Value;
use std::time::Duration;
use tokio::io::AsyncBufReadExt;

async fn bench(args: &[&str]) -> (i32, String, String) {
    common::cli(&[&["bench"], args].concat(), &[]).await
}

async fn sim_answering_in(ttft_ms: u64) -> sim::SimHandle {
    let config = SimConfig {
        ttft: Delay::Fixed(Duration::from_millis(ttft_ms)),
        itl: Delay::Fixed(Duration::from_millis(1)),
        tokens: 4,
        ..Default::default()
    };
    sim::spawn(config, "127.0.0.1:0".parse().unwrap()).await.unwrap()
}

/// The printed line of `check` (`samples`, `schedule`, …) in the verdict.
fn check_line<'a>(stdout: &'a str, check: &str) -> &'a str {
    stdout.lines().find(|l| l.trim_start().starts_with(check)).unwrap_or_else(|| panic!("no {check} line:\n{stdout}"))
}

#[tokio::test]
async fn a_run_too_small_for_the_percentile_it_is_read_at_is_invalid_and_exits_3() {
    let sim = sim_answering_in(2).await;
    let base = sim.base_url();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("report.json");
    let out_path = out.to_str().unwrap();
    let args = |n: &'static str| {
        ["--base-url", &base, "--model", "m", "--prompt", "hi", "-n", n, "--slo", "ttft_p99_ms<=60000"]
            .map(str::to_string)
    };
    let owned = [&args("10")[..], &["--out".to_string(), out_path.to_string()]].concat();
    let (code, stdout, stderr) = bench(&owned.iter().map(String::as_str).collect::<Vec<_>>()).await;
    assert_eq!(code, 3, "stdout:\n{stdout}\nstderr:\n{stderr}");
    // The verdict comes first, its first reason the samples (a busy test machine may add a late event loop).
    assert!(stdout.starts_with("validity       INVALID: SAMPLES"), "the verdict comes first:\n{stdout}");
    assert!(
        check_line(&stdout, "samples").contains("FAILED: 10 successful request(s); p99")
            && stdout.contains("needs at least 100"),
        "{stdout}"
    );
    assert!(stdout.contains("change: Send at least 100 requests"), "{stdout}");
    assert!(stderr.contains("failing with status 3"), "{stderr}");

    // `--out` holds the verdict right after which run it is.
    let snapshot: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let validity = &snapshot["validity"];
    assert_eq!(
        (validity["verdict"].as_str(), validity["checks"][0]["check"].as_str()),
        (Some("invalid"), Some("samples"))
    );
    assert_eq!(validity["checks"][0]["outcome"], "failed");
    assert!(validity["checks"][0]["change"].as_str().unwrap().contains("100 requests"));

    // Asked not to fail on it, the run passes with the verdict printed.
    let allowed = [&args("10")[..], &["--allow-invalid".to_string()]].concat();
    let (code, stdout, _) = bench(&allowed.iter().map(String::as_str).collect::<Vec<_>>()).await;
    assert_eq!(code, 0, "{stdout}");
    assert!(stdout.starts_with("validity       INVALID: SAMPLES"), "{stdout}");

    // A hundred requests carry a p99.
    let hundred = [&args("100")[..], &["--allow-invalid".to_string()]].concat();
    let (code, stdout, stderr) = bench(&hundred.iter().map(String::as_str).collect::<Vec<_>>()).await;
    assert!(check_line(&stdout, "samples").contains("ok: 100 successful"), "{stdout}\n{stderr}");
    assert_eq!(code, 0, "stdout:\n{stdout}\nstderr:\n{stderr}");
}

#[tokio::test]
async fn an_open_loop_that_could_not_keep_its_schedule_is_invalid() {
    // 20 requests/s asked, one in flight at most, each taking 100 ms: a send waits for the slot, 10/s at best.
    let sim = sim_answering_in(100).await;
    let base = sim.base_url();
    let args = ["--base-url", &base, "--model", "m", "--prompt", "hi", "-n", "20", "--rate", "20"];
    let (code, stdout, stderr) = bench(&[&args[..], &["--max-concurrency", "1"]].concat()).await;
    assert_eq!(code, 3, "stdout:\n{stdout}\nstderr:\n{stderr}");
    assert!(stdout.starts_with("validity       INVALID: SCHEDULE"), "{stdout}");
    assert!(check_line(&stdout, "schedule").contains("of the 20 asked (bound 90 % of it)"), "{stdout}");
    assert!(stdout.contains("change: The load generator could not keep the rate"), "{stdout}");

    // With room for every request in flight, the same rate is kept.
    let (code, stdout, stderr) = bench(&[&args[..], &["--max-concurrency", "8", "--allow-invalid"]].concat()).await;
    assert!(check_line(&stdout, "schedule").contains("ok: sends lagged their schedule by"), "{stdout}\n{stderr}");
    assert_eq!(code, 0, "stdout:\n{stdout}\nstderr:\n{stderr}");
}

/// A simulator of instant 128-token answers on every core, one worker a core: it competes with the client for the
/// client's core, and keeps up with a client on one core whatever the build (a debug client reads a stream faster
/// than a debug simulator writes it, so a simulator on one core of its own would leave the client waiting on it).
async fn simulator_on_every_core(cores: usize) -> (tokio::process::Child, String) {
    let mut sim = tokio::process::Command::new("taskset")
        .args(["-c", &format!("0-{}", cores - 1), env!("CARGO_BIN_EXE_latency-guard"), "sim", "--port", "0"])
        .args(["--ttft-ms", "0", "--itl-ms", "0", "--tokens", "128", "--workers", &cores.to_string()])
        .stdout(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("taskset (util-linux) runs the simulator");
    let mut lines = tokio::io::BufReader::new(sim.stdout.take().unwrap()).lines();
    let first = tokio::time::timeout(Duration::from_secs(30), lines.next_line()).await.unwrap().unwrap().unwrap();
    let url = first.strip_prefix("simulator listening at ").unwrap_or_else(|| panic!("{first}")).to_string();
    (sim, url)
}

#[tokio::test]
async fn a_load_generator_with_no_cpu_to_spare_is_invalid() {
    // The client on the first core, the simulator on every core: 64 streams of instant answers keep the client's
    // one event-loop worker busy reading, or waiting for its core while the simulator uses it.
    let cores = std::thread::available_parallelism().unwrap().get();
    let (_sim, base) = simulator_on_every_core(cores).await;
    let output = tokio::process::Command::new("taskset")
        .args(["-c", "0", env!("CARGO_BIN_EXE_latency-guard"), "bench", "--base-url", &base, "--model", "m"])
        .args(["--prompt", "hi", "-n", "600", "-c", "64"])
        .output()
        .await
        .unwrap();
    let (stdout, stderr) = (String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    assert_eq!(output.status.code(), Some(3), "stdout:\n{stdout}\nstderr:\n{stderr}");
    assert!(stdout.lines().next().unwrap().contains("CLIENT CPU"), "{stdout}");
    let line = check_line(&stdout, "client CPU");
    assert!(
        line.contains("FAILED: the load generator's 1 event-loop worker(s) were busy"),
        "one core, one worker:\n{stdout}"
    );
    assert!(stdout.contains("change: The client was the bottleneck"), "{stdout}");
}
