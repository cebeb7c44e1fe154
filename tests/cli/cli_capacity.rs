//! `latency-guard capacity` as a capacity plan or a CI pipeline runs it: the real binary against the simulator's
//! capacity model (a server with 4 slots, so the knee is at a known place) on loopback.
#![cfg(feature = "ssr")]
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a failing test should panic loudly")]

use crate::common;

use latency_guard::sim::{self, Delay, SimConfig};
use serde_json::Value;
use std::time::Duration;

/// 4 slots; each response holds its slot about 100 ms (40 ms to the first token, then 10 gaps of 6 ms). With 4 or
/// fewer in flight nobody waits (TTFT ≈ 40 ms); with 5 or more some request always waits for a slot (about half a
/// service time at 5 in flight, more beyond), and at 5 in flight that is 1 request in 5, far above the 5 % a p95
/// allows. The capacity under `ttft_p95_ms<=65` is therefore exactly 4 in flight, or 4 / 100 ms ≈ 40 requests per
/// second. The bound sits ~25 ms from both sides, beyond the delays a shared machine adds (seen: 15 ms).
fn four_slots() -> SimConfig {
    SimConfig {
        ttft: Delay::Fixed(Duration::from_millis(40)),
        itl: Delay::Fixed(Duration::from_millis(6)),
        tokens: 11,
        slots: Some(4),
        ..Default::default()
    }
}

async fn capacity(args: &[&str]) -> (i32, String, String) {
    common::cli(&[&["capacity", "--model", "sim-model", "--prompt", "hello"], args].concat(), &[]).await
}

fn levels(report: &Value) -> Vec<(f64, bool)> {
    report["levels"].as_array().unwrap().iter().map(|l| (l["level"].as_f64().unwrap(), l["passed"] == true)).collect()
}

async fn completed(sim: &sim::SimHandle) -> u64 {
    let stats: Value = reqwest::get(format!("http://{}/sim/stats", sim.addr())).await.unwrap().json().await.unwrap();
    stats["completed"].as_u64().unwrap()
}

#[tokio::test]
async fn finds_the_known_concurrency_with_the_evidence_for_it() {
    let sim = sim::spawn_local(four_slots()).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("capacity.json");
    let (base, out_path) = (sim.base_url(), out.to_str().unwrap().to_string());
    let args = ["--base-url", &base, "--slo", "ttft_p95_ms<=65", "--requests-per-level", "100", "--out", &out_path];
    let (code, stdout, stderr) = capacity(&args).await;
    assert_eq!(code, 0, "stdout:\n{stdout}\nstderr:\n{stderr}");
    // The interval ends at the answer; it starts lower only when the shared machine delayed a few requests at 4
    // in flight past the objective.
    let interval = ["1", "2", "3", "4"].map(|low| format!("capacity: 4 in flight (95% interval {low} to 4;"));
    assert!(interval.iter().any(|line| stdout.contains(line.as_str())), "{stdout}");
    assert!(stderr.contains("level 1: 1 in flight — 100 requests"), "progress on stderr: {stderr}");
    assert!(stderr.contains("; figures valid (") || stderr.contains("; figures invalid: "), "{stderr}");

    let report: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(report["answer"], 4);
    assert_eq!(report["knee"], 4, "throughput stops growing at 4 slots while latency climbs");
    assert_eq!(report["stoppedEarly"], false);
    assert_eq!((report["bounded"].clone(), report["interval"]["low"].clone()), (Value::Bool(true), Value::from(4)));
    // Bracketed by doubling (1, 2, 4, 8), then bisected (6, 5): six runs for the exact answer.
    assert_eq!(levels(&report), [(1.0, true), (2.0, true), (4.0, true), (8.0, false), (6.0, false), (5.0, false)]);
    for level in report["levels"].as_array().unwrap() {
        let figure = level["ttft_p95_ms"].as_f64().unwrap();
        assert_eq!(level["passed"], figure <= 65.0, "the verdict is the judged figure against the bound: {level}");
        assert_eq!(level["requests"], 100);
        // Each level carries its run's verdict; a hundred requests carry the p95 its objective reads.
        let samples = level["validity"]["checks"].as_array().unwrap().iter().find(|c| c["check"] == "samples").unwrap();
        assert_eq!(samples["outcome"], "passed", "{level}");
        if level["passed"] == false {
            assert!(level["reasons"][0].as_str().unwrap().starts_with("ttft_p95_ms<=65 missed"), "{level}");
            assert_eq!(level["passProbability"], 0.0, "far over the bound: no resample passes: {level}");
        }
    }
    let at = |n: f64| report["levels"].as_array().unwrap().iter().find(|l| l["level"] == n).unwrap().clone();
    let (four, five) = (at(4.0), at(5.0));
    assert!(
        five["ttftMs"]["p95"].as_f64().unwrap() > four["ttftMs"]["p95"].as_f64().unwrap() + 25.0,
        "past the knee some requests wait for a slot: {four} {five}"
    );
    let throughput = |l: &Value| l["throughputRps"].as_f64().unwrap();
    assert!(throughput(&five) < throughput(&four) * 1.1, "no more throughput beyond 4 slots: {four} {five}");
    // Every request the search says it sent reached its end at the simulator (warm-ups included).
    assert_eq!(report["requestsSent"].as_u64().unwrap(), 6 * 100 + (1 + 2 + 4 + 8 + 6 + 5));
    assert_eq!(completed(&sim).await, report["requestsSent"].as_u64().unwrap());
    assert!(report["notes"].as_array().unwrap().iter().any(|n| n.as_str().unwrap().contains("resampled")));
}

#[tokio::test]
async fn finds_the_known_rate_within_its_resolution() {
    let sim = sim::spawn_local(four_slots()).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("capacity.json");
    let (base, out_path) = (sim.base_url(), out.to_str().unwrap().to_string());
    let args = [
        "--base-url",
        &base,
        "--slo",
        "ttft_p95_ms<=65",
        "--rate",
        "--min-rate",
        "10",
        "--max-rate",
        "160",
        "--requests-per-level",
        "100",
        "--out",
        &out_path,
    ];
    let (code, stdout, stderr) = capacity(&args).await;
    assert_eq!(code, 0, "stdout:\n{stdout}\nstderr:\n{stderr}");
    let report: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let answer = report["answer"].as_f64().unwrap();
    // The model's capacity is 4 slots / ~100 ms ≈ 40 req/s; the search brackets 10, 20, 40, 80 and bisects to 10 %.
    assert!((20.0..=45.0).contains(&answer), "answer {answer} req/s: {stdout}");
    assert_eq!(report["bounded"], true);
    for (level, passed) in levels(&report) {
        assert_eq!(passed, level <= answer, "monotone: {level} {passed}");
    }
    for level in report["levels"].as_array().unwrap().iter().filter(|l| l["passed"] == true) {
        let (asked, achieved) = (level["level"].as_f64().unwrap(), level["achievedRate"].as_f64().unwrap());
        assert!(achieved >= asked * 0.9, "a passing level achieved its rate: {level}");
    }
    assert!(stdout.contains(" req/s"), "{stdout}");
}

#[tokio::test]
async fn says_when_nothing_passes_when_the_answer_is_short_and_when_options_are_wrong() {
    let sim = sim::spawn_local(four_slots()).await.unwrap();
    let base = sim.base_url();
    let few = ["--requests-per-level", "20"];

    // Every level passes up to the maximum: "at least", not bounded; short of --require fails the pipeline.
    let args =
        [&["--base-url", &base, "--slo", "total_ms<=5000", "--max-concurrency", "2", "--require", "4"], &few[..]];
    let (code, stdout, stderr) = capacity(&args.concat()).await;
    assert_eq!(code, 1, "{stdout}\n{stderr}");
    assert!(stdout.contains("capacity: at least 2 in flight"), "{stdout}");
    assert!(stderr.contains("capacity 2 is below the required 4"), "{stderr}");

    // Nothing passes.
    let (code, stdout, _) = capacity(&[&["--base-url", &base, "--slo", "ttft_p95_ms<=1"], &few[..]].concat()).await;
    assert_eq!(code, 1);
    assert!(stdout.contains("capacity: none — the lowest level tried already missed the objectives"), "{stdout}");

    // A broken endpoint: every request fails, and the level says so.
    let (code, stdout, _) =
        capacity(&[&["--base-url", "http://127.0.0.1:9/v1", "--slo", "ttft_p95_ms<=100"], &few[..]].concat()).await;
    assert_eq!(code, 1);
    assert!(stdout.contains("100.0 % of requests failed, above the 1.0 % allowed"), "{stdout}");

    // Options a search cannot run with: exit 2 and a sentence.
    for (bad, says) in [
        (vec!["--slo", "ttft<=5"], "--slo"),
        (vec!["--slo", "ttft_p95_ms<=5", "--min-concurrency", "8", "--max-concurrency", "4"], "below the lowest"),
        (vec!["--slo", "ttft_p95_ms<=5", "--max-error-rate", "2"], "--max-error-rate"),
        (vec!["--slo", "ttft_p95_ms<=5", "--rate", "--resolution", "0"], "resolution"),
        (vec!["--slo", "ttft_p95_ms<=5", "--requests-per-level", "0"], "--requests-per-level"),
    ] {
        let (code, _, stderr) = capacity(&[&["--base-url", &base][..], &bad].concat()).await;
        assert_eq!(code, 2, "{bad:?}: {stderr}");
        assert!(stderr.contains(says), "{bad:?}: {stderr}");
    }
    let (code, _, stderr) = capacity(&["--base-url", &base]).await;
    assert_eq!(code, 2, "an objective is required: {stderr}");
    assert_eq!(completed(&sim).await, (20 + 1) + (20 + 2) + (20 + 1), "a refused search sends nothing");
}

/// A capacity search of a workload: every level sends its number of the workload's requests (prompts of 32
/// tokens, answers of 11), each level's text seeded afresh, and the known answer is found as with prompts.
#[tokio::test]
async fn finds_the_known_concurrency_for_a_workload() {
    // The same 4 slots at twice the service time (80 ms to the first token, 10 gaps of 12 ms): at 4 in flight the
    // first token comes at ~80 ms, at 5 one request in 5 waits ~100 ms more, and the bound sits ~50 ms from both
    // sides. At 40 ms / 65 ms a loaded 2-core machine's tail (65.3 and 72.5 ms seen at 4 in flight) crossed it.
    let sim = sim::spawn_local(SimConfig {
        ttft: Delay::Fixed(Duration::from_millis(80)),
        itl: Delay::Fixed(Duration::from_millis(12)),
        ..four_slots()
    })
    .await
    .unwrap();
    let base = sim.base_url();
    let args = ["capacity", "--model", "sim-model", "--base-url", &base, "--slo", "ttft_p95_ms<=130"];
    let workload = ["--input-tokens", "32", "--output-tokens", "11", "--requests-per-level", "60"];
    let (code, stdout, stderr) = common::cli(&[&args[..], &workload[..]].concat(), &[]).await;
    assert_eq!(code, 0, "stdout:\n{stdout}\nstderr:\n{stderr}");
    assert!(stdout.contains("capacity: 4 in flight"), "{stdout}");
    assert!(stderr.contains("level 1: 1 in flight — 60 requests"), "{stderr}");
    // Each level: as many warm-ups as it has in flight, then its 60 requests.
    let in_flight: Vec<u64> = stderr
        .lines()
        .filter(|l| l.contains("— 60 requests"))
        .map(|l| l.split(": ").nth(1).unwrap().split(' ').next().unwrap().parse().unwrap())
        .collect();
    let expected = in_flight.iter().map(|c| c + 60).sum::<u64>();
    assert_eq!(completed(&sim).await, expected, "levels {in_flight:?}: {stderr}");

    let (code, _, stderr) = common::cli(&[&args[..], &workload[..], &["--prompt", "hello"]].concat(), &[]).await;
    assert_eq!(code, 2);
    assert!(stderr.contains("give prompts or a workload, not both"), "{stderr}");
}
