//! `latency-guard bench` as a CI pipeline runs it: the real binary against the simulator on loopback.
#![cfg(feature = "ssr")]
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a failing test should panic loudly")]

use crate::common;

use latency_guard::sim::{self, SimConfig};
use serde_json::Value;
use std::time::Duration;

async fn bench(args: &[&str], env: &[(&str, &str)]) -> (i32, String, String) {
    // A busy test machine may make a run's figures invalid (a late event loop): these tests are of other things
    // (tests/cli/cli_validity.rs is of the verdict).
    common::cli(&[&["bench", "--allow-invalid"], args].concat(), env).await
}

/// The snapshot's honesty note that starts with `start`.
fn note_starting<'a>(snapshot: &'a Value, start: &str) -> Option<&'a str> {
    snapshot["honesty"].as_array()?.iter().filter_map(Value::as_str).find(|n| n.starts_with(start))
}

#[tokio::test]
async fn prints_a_summary_writes_the_snapshot_and_passes() {
    let config = SimConfig {
        ttft: latency_guard::sim::Delay::Fixed(Duration::from_millis(10)),
        itl: latency_guard::sim::Delay::Fixed(Duration::from_millis(1)),
        tokens: 8,
        api_key: Some("sk-cli".into()),
        ..Default::default()
    };
    let sim = sim::spawn(config, "127.0.0.1:0".parse().unwrap()).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("report.json");
    let (base, out_path) = (sim.base_url(), out.to_str().unwrap().to_string());
    let args = [
        "--base-url",
        &base,
        "--model",
        "sim-model",
        "--api-key-env",
        "LG_TEST_KEY",
        "--prompt",
        "hello",
        "--prompt",
        "bye",
        "-n",
        "3",
        "-c",
        "2",
        "--warmup",
        "1",
        "--out",
        &out_path,
    ];
    // A token kept in the environment for runs on a server does not stop a run here.
    let env = [("LG_TEST_KEY", "sk-cli"), ("LATENCY_GUARD_TOKEN", "lgt_kept_for_remote_runs")];
    let (code, stdout, stderr) = bench(&args, &env).await;
    assert_eq!(code, 0, "stdout:\n{stdout}\nstderr:\n{stderr}");
    assert!(stdout.contains("6 measured (6 ok, 0 failed)"), "{stdout}");
    assert!(stdout.lines().any(|l| l.starts_with("TTFT ms") && l.contains("p99")), "{stdout}");
    assert!(stdout.lines().any(|l| l.starts_with("TPOT ms") && l.contains("p50")), "{stdout}");
    assert!(stdout.lines().any(|l| l.starts_with("ITL ms") && l.contains("p95")), "{stdout}");
    // The simulator says when it had each request and sent its first output: the client's own share is printed.
    assert!(
        stdout.lines().any(|l| l.starts_with("client added")
            && l.contains("p99")
            && l.ends_with("ms to the endpoint's own first output, over the 6 replies that said it")),
        "{stdout}"
    );

    // Objectives: met ones pass; a missed one fails the pipeline and says which.
    let with = |slo: &'static str| [&args[..], &["--slo", "ttft_p50_ms<=60000", "--slo", slo]].concat();
    let (code, stdout, stderr) = bench(&with("total_ms<=60000"), &[("LG_TEST_KEY", "sk-cli")]).await;
    assert_eq!(code, 0, "stdout:\n{stdout}\nstderr:\n{stderr}");
    assert!(stdout.contains("(100.0% good)") && stdout.contains("objective      ttft_p50_ms<=60000 met"), "{stdout}");
    let (code, stdout, stderr) = bench(&with("total_ms<=1"), &[("LG_TEST_KEY", "sk-cli")]).await;
    assert_eq!(code, 1, "{stdout}");
    assert!(stdout.contains("total_ms<=1 MISSED"), "{stdout}");
    assert!(stderr.contains("objective(s) missed: total_ms<=1"), "{stderr}");
    assert!(stderr.contains("7/7 done"), "progress on stderr: {stderr}");
    assert!(!stdout.contains("sk-cli") && !stderr.contains("sk-cli"));
    let snapshot: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let keys: Vec<&str> = snapshot.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(keys, ["agent", "connector", "honesty", "report", "results", "stats", "validity"]);
    assert_eq!(snapshot["results"].as_array().unwrap().len(), 7);
    // What answered, in the replies' own words: every one of the 7 named the model and the simulator's build.
    assert_eq!(
        note_starting(&snapshot, "What answered"),
        Some(
            "What answered: model sim-model (7) in 7 of 7 replies; system_fingerprint latency-guard-sim (7) in 7 of 7 \
             replies; no reply gave a Server header."
        ),
        "{snapshot}"
    );
    // Each reply's own time to first output is the simulator's 10 ms (and its timer's wake-up), and what the client
    // and loopback added on top of it is under the measured first output.
    for r in snapshot["results"].as_array().unwrap() {
        let (own, measured) = (r["serverFirstOutputMs"].as_f64().unwrap(), r["firstOutputMs"].as_f64().unwrap());
        assert!((10.0..60.0).contains(&own), "the simulator's own time to first output: {r}");
        assert!(measured > own, "the measured first output includes the endpoint's own: {r}");
    }
    let overhead = note_starting(&snapshot, "Client overhead");
    assert!(overhead.is_some_and(|n| n.contains("6 of 6 successful measured replies said")), "{snapshot}");
    common::assert_report_schema(&snapshot);
    assert!(!snapshot.to_string().contains("sk-cli"), "the snapshot never carries the key");
}

#[tokio::test]
async fn fails_the_pipeline_when_requests_fail_and_explains_bad_options() {
    let config = SimConfig {
        api_key: Some("sk-right".into()),
        ttft: latency_guard::sim::Delay::Fixed(Duration::ZERO),
        itl: latency_guard::sim::Delay::Fixed(Duration::ZERO),
        tokens: 2,
        ..Default::default()
    };
    let sim = sim::spawn(config, "127.0.0.1:0".parse().unwrap()).await.unwrap();
    let base = sim.base_url();
    let (code, stdout, stderr) = bench(&["--base-url", &base, "--model", "m", "--prompt", "x", "-n", "2"], &[]).await;
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert!(stdout.contains("error rate     100.00%"), "{stdout}");
    assert!(stderr.contains("above --max-error-rate"), "{stderr}");

    let cases: [(&[&str], &str); 5] = [
        (&["--base-url", "ftp://x", "--model", "m", "--prompt", "x"], "--base-url"),
        // A rate so low that no request would ever be sent: a CI gate must not pass on it.
        (
            &["--base-url", "http://127.0.0.1:9/v1", "--model", "m", "--prompt", "x", "--rate", "1e-300"],
            "mode.ratePerSecond",
        ),
        (
            &["--base-url", "http://127.0.0.1:9/v1?api_key=sk-1", "--model", "m", "--prompt", "x"],
            "looks like a credential",
        ),
        (&["--base-url", "http://127.0.0.1:9/v1", "--model", "m", "--prompt", "x", "-c", "0"], "mode.concurrency"),
        (
            &[
                "--base-url",
                "http://127.0.0.1:9/v1",
                "--model",
                "m",
                "--prompt",
                "x",
                "--api-key-env",
                "LG_UNSET_VAR_XYZ",
            ],
            "LG_UNSET_VAR_XYZ is not set",
        ),
    ];
    for (args, needle) in cases {
        let (code, _, stderr) = bench(args, &[]).await;
        assert_eq!(code, 2, "options that cannot run are a usage error: {args:?}");
        assert!(stderr.contains("bench: ") && stderr.contains(needle), "{args:?}: {stderr}");
    }
}

#[tokio::test]
async fn benchmarks_a_stored_connector_with_its_key_and_prices() {
    use latency_guard::config::{sqlite_url, Secret};
    use latency_guard::model::ConnectorInput;
    use latency_guard::secrets::SecretBox;
    let config = SimConfig {
        api_key: Some("sk-stored".into()),
        ..SimConfig::fixed(Duration::from_millis(2), Duration::ZERO, 4)
    };
    let sim = sim::spawn(config, "127.0.0.1:0".parse().unwrap()).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let url = sqlite_url(&dir.path().join("app.db"));
    let secret_hex = "ab".repeat(32);
    let store = latency_guard::store::Store::connect(&url).await.unwrap();
    let (ws, _) = store.ensure_workspace("local:owner", "w", 1).await.unwrap();
    let input = ConnectorInput {
        name: "stored".into(),
        base_url: sim.base_url(),
        model: "sim-model".into(),
        api_key: Some("sk-stored".into()),
        input_price_per_mtok: Some(1.0),
        output_price_per_mtok: Some(2.0),
        ..Default::default()
    };
    let sealer = SecretBox::new(&Secret::from_text(&secret_hex).unwrap());
    let connector = store.create_connector(ws.id, &input.validate().unwrap(), false, &sealer, 1).await.unwrap();
    store.close().await;

    let out = dir.path().join("r.json");
    let (id, out_path) = (connector.id.to_string(), out.to_str().unwrap().to_string());
    let env = [
        ("DATABASE_URL", url.as_str()),
        ("LATENCY_GUARD_SECRET", secret_hex.as_str()),
        ("LATENCY_GUARD_DEMO_SIMULATOR", "false"),
    ];
    let (code, stdout, stderr) =
        bench(&["--connector", &id, "--prompt", "hello", "-n", "2", "--out", &out_path], &env).await;
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let snapshot: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(snapshot["connector"]["model"], "sim-model");
    assert!(common::null_at(&snapshot, "/results/0/error"), "the stored key was used");
    assert!(snapshot["results"][0]["costUsd"].as_f64().unwrap() > 0.0, "the stored prices were used");

    let (code, _, stderr) = bench(&["--connector", &uuid::Uuid::new_v4().to_string(), "--prompt", "x"], &env).await;
    assert_ne!(code, 0);
    assert!(stderr.contains("not found"), "{stderr}");
}

/// `--repeat`: three runs, each in a line, then every figure over the repetitions (mean, 95 % interval, CV) and
/// `--out` holding the summary and each run's snapshot.
#[tokio::test]
async fn repeats_a_run_and_reports_figures_over_the_repetitions() {
    let config = SimConfig {
        ttft: latency_guard::sim::Delay::Fixed(Duration::from_millis(5)),
        itl: latency_guard::sim::Delay::Fixed(Duration::from_millis(1)),
        tokens: 6,
        ..Default::default()
    };
    let sim = sim::spawn(config, "127.0.0.1:0".parse().unwrap()).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("repeated.json");
    let (base, out_path) = (sim.base_url(), out.to_str().unwrap().to_string());
    let args = ["--base-url", &base, "--model", "m", "--prompt", "hi", "-n", "20", "--repeat", "3", "--pause", "0.05"];
    let (code, stdout, stderr) =
        bench(&[&args[..], &["--slo", "ttft_p95_ms<=60000", "--out", &out_path]].concat(), &[]).await;
    assert_eq!(code, 0, "stdout:\n{stdout}\nstderr:\n{stderr}");
    assert!(stderr.contains("repetition 3/3"), "{stderr}");
    let repetitions: Vec<&str> = stdout.lines().filter(|l| l.starts_with("repetition ")).collect();
    assert_eq!(repetitions.len(), 3, "{stdout}");
    let verdict = |l: &&str| l.contains("failed, valid (") || l.contains("failed, invalid: ");
    assert!(repetitions.iter().all(verdict), "each with its verdict: {stdout}");
    let line = stdout.lines().find(|l| l.starts_with("ttftP50Ms")).unwrap();
    assert!(line.contains(" to ") && line.contains('%'), "mean, interval and CV: {line}");
    assert!(stdout.contains("note: 3 repetitions."), "{stdout}");

    let written: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let runs = written["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 3);
    let ttft = &written["repeated"]["figures"]["ttftP50Ms"];
    let values: Vec<f64> = ttft["values"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
    let per_run: Vec<f64> = runs.iter().map(|r| r["stats"]["ttft"]["p50"].as_f64().unwrap()).collect();
    assert_eq!(values, per_run, "one value per repetition, its own run's p50");
    let mean = ttft["mean"].as_f64().unwrap();
    assert!((mean - values.iter().sum::<f64>() / 3.0).abs() < 1e-9);
    assert!(ttft["ciLow"].as_f64().unwrap() <= mean && mean <= ttft["ciHigh"].as_f64().unwrap());
    assert!(mean > 5.0 && mean < 40.0, "the simulator's 5 ms and the client's overhead: {mean}");
    assert_eq!(written["repeated"]["figures"]["goodFraction"]["mean"], 1.0);
    assert!(written["repeated"]["agreement"]["ttft"]["pValue"].is_number());
    for run in runs {
        common::assert_report_schema(run);
    }

    // A repetition that fails the pipeline fails the command, and says which.
    let (code, _, stderr) = bench(&[&args[..], &["--slo", "ttft_p95_ms<=1"]].concat(), &[]).await;
    assert_eq!(code, 1);
    assert!(stderr.contains("repetition 1: objective(s) missed: ttft_p95_ms<=1"), "{stderr}");
}

/// `--duration`: without -n the time decides how many requests go; the report says how the run was cut, and
/// the limit is counted from the first measured send (the warm-ups before it do not use it up).
#[tokio::test]
async fn a_time_limit_stops_sending_and_the_report_says_so() {
    let config = SimConfig {
        ttft: latency_guard::sim::Delay::Fixed(Duration::from_millis(20)),
        itl: latency_guard::sim::Delay::Fixed(Duration::from_millis(1)),
        tokens: 5,
        ..Default::default()
    };
    let sim = sim::spawn(config, "127.0.0.1:0".parse().unwrap()).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("limited.json");
    let base = sim.base_url();
    let args = ["--base-url", &base, "--model", "m", "--prompt", "hi", "-c", "2", "--warmup", "2", "--duration", "1"];
    let started = std::time::Instant::now();
    let (code, stdout, stderr) = bench(&[&args[..], &["--out", out.to_str().unwrap()]].concat(), &[]).await;
    assert_eq!(code, 0, "stdout:\n{stdout}\nstderr:\n{stderr}");
    assert!(started.elapsed() < Duration::from_secs(10), "one second of sends, not a million requests");
    assert!(stderr.contains("s of 1s"), "progress counts the time: {stderr}");
    let snapshot: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let results = snapshot["results"].as_array().unwrap();
    let measured: Vec<&Value> = results.iter().filter(|r| r["warmup"] == false).collect();
    // ~25 ms a request, 2 in flight: about 80 in a second; the machine may be slower, never faster.
    assert!((10..=90).contains(&measured.len()), "{} measured", measured.len());
    // The limit is between the instants sends were due: the send itself trails that by its recorded schedule lag.
    // Both figures are whole microseconds, so the comparison is in microseconds too.
    let micros = |ms: &Value| (ms.as_f64().unwrap() * 1_000.0).round() as i64;
    let due: Vec<i64> = measured.iter().map(|r| micros(&r["sentAtMs"]) - micros(&r["scheduleLagMs"])).collect();
    let (first, last) = (due.iter().min().unwrap(), due.iter().max().unwrap());
    assert!(last - first <= 1_000_000, "nothing due after the limit was sent: {} µs", last - first);
    let note =
        snapshot["honesty"].as_array().unwrap().iter().find_map(|n| n.as_str().filter(|n| n.starts_with("Time limit")));
    let note = note.unwrap_or_else(|| panic!("no time-limit note: {}", snapshot["honesty"]));
    assert!(note.contains("due once 1 s had passed since the first measured one was due"), "{note}");
    assert!(note.contains(&format!("{} of at most 1000000 measured requests were sent", measured.len())), "{note}");

    let (code, _, stderr) =
        bench(&["--base-url", &base, "--model", "m", "--prompt", "hi", "--duration", "0.5"], &[]).await;
    assert_ne!(code, 0, "{stderr}");
    assert!(stderr.contains("durationS: must be between 1 and 86400 seconds"), "{stderr}");
}

/// Gamma-distributed gaps: at burstiness 0.25 the gaps' coefficient of variation is 2 (1/√0.25; 1 is Poisson's),
/// and over 299 gaps it is above 1.5 in all but 1 of 10,000 draws (numpy), so 1.3 tells it from Poisson for
/// certain; the mean rate stays the asked one. A burstiness with --poisson, or of 0, is refused.
#[tokio::test]
async fn bursty_arrivals_vary_their_gaps_as_asked_at_the_asked_mean_rate() {
    let sim = sim::spawn_local(SimConfig::fixed_ms(1, 0, 2)).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("bursty.json");
    let base = sim.base_url();
    let args = ["--base-url", base.as_str(), "--model", "m", "--prompt", "hi", "--rate", "100", "-n", "300"];
    let (code, stdout, stderr) =
        bench(&[&args[..], &["--burstiness", "0.25", "--out", out.to_str().unwrap()]].concat(), &[]).await;
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let report: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let mut sent: Vec<f64> =
        report["results"].as_array().unwrap().iter().map(|r| r["sentAtMs"].as_f64().unwrap()).collect();
    sent.sort_by(f64::total_cmp);
    let gaps: Vec<f64> = sent.windows(2).map(|w| w[1] - w[0]).collect();
    let mean = gaps.iter().sum::<f64>() / gaps.len() as f64;
    let sd = (gaps.iter().map(|g| (g - mean).powi(2)).sum::<f64>() / gaps.len() as f64).sqrt();
    assert!(sd / mean > 1.3, "coefficient of variation {} (mean gap {mean} ms)", sd / mean);
    assert!((5.0..20.0).contains(&mean), "mean gap {mean} ms at 100/s");
    assert!(report["honesty"].to_string().contains("gamma gaps, burstiness 0.25"), "{}", report["honesty"]);

    for bad in [&["--burstiness", "0"][..], &["--burstiness", "0.5", "--poisson"]] {
        let (code, _, stderr) = bench(&[&args[..], bad].concat(), &[]).await;
        assert_ne!(code, 0, "{bad:?}");
        assert!(stderr.contains("burstiness"), "{bad:?}: {stderr}");
    }
}

/// A stepped rate: 50/s for 0.2 s then 100/s for 0.2 s, constant spacing, sends 10 then 20 requests 20 ms then 10
/// ms apart, and nothing after the last step although -n allows more. A closed loop ramping from 1 to 4 in flight
/// over 0.3 s sends warm-ups until then (flagged, not in the statistics) and measured requests after.
#[tokio::test]
async fn a_stepped_rate_follows_its_steps_and_a_ramp_is_a_warm_up() {
    let sim = sim::spawn_local(SimConfig::fixed_ms(1, 0, 2)).await.unwrap();
    let base = sim.base_url();
    let args = ["--base-url", base.as_str(), "--model", "m", "--prompt", "hi", "-n", "1000"];
    let (code, report, output) = common::bench_report(&[&args[..], &["--steps", "50:0.2, 100:0.2"]].concat()).await;
    assert_eq!(code, 0, "{output}");
    let mut due: Vec<f64> = report["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["sentAtMs"].as_f64().unwrap() - r["scheduleLagMs"].as_f64().unwrap())
        .collect();
    due.sort_by(f64::total_cmp);
    assert_eq!(due.len(), 30, "10 at 50/s and 20 at 100/s: {due:?}");
    assert!((due[9] - 180.0).abs() < 0.5 && (due[10] - 200.0).abs() < 0.5 && (due[29] - 390.0).abs() < 0.5, "{due:?}");
    assert!(report["honesty"].to_string().contains("rate steps: 50/s for 0.2 s, 100/s for 0.2 s"));

    // 10 ms a request: about 75 during the ramp and 400 after it, within -n.
    let slower = sim::spawn_local(SimConfig::fixed_ms(10, 0, 2)).await.unwrap();
    let base = slower.base_url();
    let ramp = ["--base-url", base.as_str(), "--model", "m", "--prompt", "hi", "-n", "1000", "-c", "4"];
    let ramp = [&ramp[..], &["--ramp-from", "1", "--ramp-seconds", "0.3", "--duration", "1"]].concat();
    let (code, report, output) = common::bench_report(&ramp).await;
    assert_eq!(code, 0, "{output}");
    let rows = report["results"].as_array().unwrap();
    let (warm, measured): (Vec<&Value>, Vec<&Value>) = rows.iter().partition(|r| r["warmup"] == true);
    let sent = |r: &Value| r["sentAtMs"].as_f64().unwrap() - r["scheduleLagMs"].as_f64().unwrap();
    assert!(!warm.is_empty() && !measured.is_empty(), "{output}");
    assert!(warm.iter().all(|r| sent(r) < 300.0) && measured.iter().all(|r| sent(r) >= 300.0));
    assert!(report["honesty"].to_string().contains("linear ramp from 1 over 0.3 s, a warm-up"));
    assert!(output.contains(&format!("{} measured", measured.len())), "{output}");
}

/// `bench --against`: a pipeline's regression gate. A run is compared with a baseline snapshot (`bench --out`) as a
/// Guard schedule would compare it; a significant slowdown past a threshold fails the command, the same speed
/// passes, and a bad threshold or baseline fails before a request is sent.
#[tokio::test]
async fn against_a_baseline_a_slowdown_fails_the_pipeline_and_the_same_speed_passes() {
    // 40 ms against 120 ms: the same speed must stay within +50 % at p95 on a busy machine (a 10 ms baseline did
    // not: a few milliseconds of scheduling were half of it).
    let fast = sim::spawn_local(SimConfig::fixed_ms(40, 0, 2)).await.unwrap();
    let slow = sim::spawn_local(SimConfig::fixed_ms(120, 0, 2)).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let baseline = dir.path().join("baseline.json");
    let baseline_path = baseline.to_str().unwrap();
    let args = |url: &str| -> Vec<String> {
        ["--base-url", url, "--model", "m", "--prompt", "hi", "-n", "8", "--no-stream"].map(String::from).to_vec()
    };
    let run = |extra: &[&str], url: String| {
        let all: Vec<String> = args(&url).into_iter().chain(extra.iter().map(|s| s.to_string())).collect();
        async move { bench(&all.iter().map(String::as_str).collect::<Vec<_>>(), &[]).await }
    };
    let (code, stdout, stderr) = run(&["--out", baseline_path], fast.base_url()).await;
    assert_eq!(code, 0, "{stdout}\n{stderr}");

    let gate = [
        "--against",
        baseline_path,
        "--threshold",
        "p95_ms:pct_increase>50",
        "--threshold",
        "error_rate:abs_increase>0.1",
    ];
    let (code, stdout, stderr) = run(&gate, slow.base_url()).await;
    assert_eq!(code, 1, "{stdout}\n{stderr}");
    assert!(stdout.contains("against        8 baseline / 8 run successful requests, Welch p = "), "{stdout}");
    assert!(stdout.contains("threshold      p95_ms:pct_increase>50 BREACHED: crossed and significant: +"), "{stdout}");
    assert!(stdout.contains("threshold      error_rate:abs_increase>0.1 ok: within the threshold"), "{stdout}");
    assert!(stderr.contains("regression against the baseline: p95_ms:pct_increase"), "{stderr}");

    let (code, stdout, stderr) = run(&gate, fast.base_url()).await;
    assert_eq!(code, 0, "the same speed passes: {stdout}\n{stderr}");
    assert!(stdout.contains("p95_ms:pct_increase>50 ok: "), "{stdout}");

    // Bad input fails at once, before the run: nothing is sent (the progress line never appears).
    for (extra, words) in [
        (vec!["--against", baseline_path, "--threshold", "p95:pct_increase>5"], "unknown metric \"p95\""),
        (
            vec!["--against", baseline_path, "--threshold", "p95_ms:pct_increase>0"],
            "--threshold 1 (p95_ms:pct_increase): must be a number above 0",
        ),
        (
            vec!["--against", "no-such-run", "--threshold", "p95_ms:pct_increase>5"],
            "neither a snapshot file nor a run id",
        ),
        (vec!["--against", baseline_path, "--threshold", "mean_ms:change_point>5"], "needs a schedule's history"),
    ] {
        let (code, stdout, stderr) = run(&extra, slow.base_url()).await;
        assert_eq!(code, 2, "a gate that cannot be judged as written is a usage error: {stdout}\n{stderr}");
        assert!(stderr.contains(words), "{words}: {stderr}");
        assert!(!stderr.contains("done"), "nothing was sent: {stderr}");
    }
    let (code, _, stderr) = run(&["--threshold", "p95_ms:pct_increase>5"], slow.base_url()).await;
    assert_eq!(code, 2, "--threshold without --against is a usage error: {stderr}");
}

/// The headline throughput is what the system delivered, not one request's speed. A server with 4 slots, each
/// response holding its slot about 100 ms (40 ms to the first token, then 10 gaps of 6 ms, 11 tokens), delivers at
/// most 4 × 11 tokens per 100 ms = 440 tok/s however many requests are in flight: doubling the concurrency from 4
/// to 8 leaves the output throughput where it was while each request waits for a slot, so one request's output
/// speed halves (the report once led with that speed, and a comparison read −50 % "throughput" for no change).
#[tokio::test]
async fn output_throughput_holds_at_a_saturated_server_while_one_requests_speed_falls() {
    let config = SimConfig {
        ttft: latency_guard::sim::Delay::Fixed(Duration::from_millis(40)),
        itl: latency_guard::sim::Delay::Fixed(Duration::from_millis(6)),
        tokens: 11,
        slots: Some(4),
        ..Default::default()
    };
    let sim = sim::spawn_local(config).await.unwrap();
    let base = sim.base_url();
    let mut figures = Vec::new();
    for concurrency in ["4", "8"] {
        let args =
            ["--base-url", &base, "--model", "m", "--prompt", "hi", "-n", "80", "--warmup", "0", "-c", concurrency];
        let (code, report, output) = common::bench_report(&args).await;
        assert_eq!(code, 0, "{output}");
        let stats = &report["stats"];
        let (throughput, requests, span, speed) = (
            stats["outputTokPerSec"].as_f64().unwrap(),
            stats["requestsPerSec"].as_f64().unwrap(),
            stats["spanS"].as_f64().unwrap(),
            stats["tokPerSec"].as_f64().unwrap(),
        );
        // 80 requests through 4 slots take at least 20 service times of 100 ms.
        assert!((2.0..2.8).contains(&span), "c={concurrency}: {stats}");
        assert!((throughput - 80.0 * 11.0 / span).abs() < 1e-6 && (requests - 80.0 / span).abs() < 1e-9, "{stats}");
        assert!(
            throughput <= 440.0 && throughput > 0.8 * 440.0,
            "c={concurrency}: at most the server's 440 tok/s: {stats}"
        );
        assert!(
            output.contains(&format!("throughput     {throughput:.1} output tok/s, {requests:.2} requests/s")),
            "{output}"
        );
        figures.push((throughput, speed));
    }
    let ((at_four, speed_four), (at_eight, speed_eight)) = (figures[0], figures[1]);
    assert!((at_eight / at_four - 1.0).abs() < 0.1, "the system's throughput did not move: {figures:?}");
    assert!(speed_four > 0.8 * 110.0, "one request alone in a slot: 11 tokens in ~100 ms: {figures:?}");
    assert!(speed_eight < 0.7 * speed_four, "each request now waits for a slot: {figures:?}");
}
