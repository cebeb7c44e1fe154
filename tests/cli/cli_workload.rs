//! `bench` with a synthetic workload: prompts of an exact length by the server's own tokenizer, answers of an
//! asked length, each request's asked lengths recorded beside what the server reported; against the simulator,
//! whose tokenizer and chat template are known (a prompt of N tokens is N + 2 prompt tokens to it).

use crate::common;

use latency_guard::sim::{self, SimConfig};
use serde_json::Value;

/// Runs `bench` with `args` and `--out`: its exit code, the report written and what it printed.
async fn bench_report(args: &[&str]) -> (i32, Value, String) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("report.json");
    let args = [&["bench"], args, &["--out", out.to_str().unwrap()]].concat();
    let (code, stdout, stderr) = common::cli(&args, &[]).await;
    let report = serde_json::from_str(&std::fs::read_to_string(&out).unwrap_or_default()).unwrap_or(Value::Null);
    (code, report, format!("{stdout}\n{stderr}"))
}

/// `report` exported as `format` by `latency-guard export --from`.
async fn exported(report: &Value, format: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let from = dir.path().join("report.json");
    std::fs::write(&from, report.to_string()).unwrap();
    let (code, stdout, stderr) =
        common::cli(&["export", "--from", from.to_str().unwrap(), "--format", format], &[]).await;
    assert_eq!(code, 0, "{stderr}");
    stdout
}

fn column(report: &Value, key: &str) -> Vec<u64> {
    report["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r[key].as_u64().unwrap_or_else(|| panic!("{key}: {r}")))
        .collect()
}

#[tokio::test]
async fn input_and_output_tokens_are_sent_as_asked_and_recorded_beside_the_servers_counts() {
    let sim = sim::spawn_local(SimConfig::fixed_ms(1, 0, 5)).await.unwrap();
    let base = sim.base_url();
    let common_args = ["--base-url", base.as_str(), "--model", "sim-model", "-c", "2"];
    let args = [&common_args[..], &["--input-tokens", "300", "--output-tokens", "40", "-n", "8"]].concat();
    let (code, report, output) = bench_report(&args).await;
    assert_eq!(code, 0, "{output}");
    assert_eq!(report["results"].as_array().unwrap().len(), 8);
    assert_eq!(column(&report, "askedInputTokens"), [300; 8]);
    assert_eq!(column(&report, "madeInputTokens"), [300; 8]);
    assert_eq!(column(&report, "tokensIn"), [302; 8], "the simulator's template adds the role and the answer's start");
    assert_eq!(column(&report, "askedOutputTokens"), [40; 8]);
    assert_eq!(column(&report, "tokensOut"), [40; 8], "ignore_eos: the simulator's own answer is 5 tokens");
    assert_eq!(column(&report, "cachedTokens"), [0; 8], "every prompt is its own: no accidental cache hit");
    let workload = &report["workload"];
    assert_eq!(workload["spec"]["kind"], "synthetic");
    assert_eq!(workload["madeAsAsked"], 8);
    assert_eq!(workload["inputDeviation"]["min"], workload["inputDeviation"]["max"]);
    assert_eq!(workload["inputDeviation"]["p50"], 2.0);
    assert_eq!(workload["endedEarly"], 0);
    let notes = report["honesty"].to_string();
    assert!(notes.contains("2 prompt tokens more than asked in every request"), "{notes}");
    assert!(
        output.contains("answer tokens  asked median 40, 40–40; achieved median 40, 40–40; 0 ended early"),
        "{output}"
    );
    common::assert_report_schema(&report);

    // The exports: the CSV's specified columns, then the asked lengths; the JSON as the snapshot; the HTML's notes.
    let csv = exported(&report, "csv").await;
    let mut lines = csv.lines();
    assert_eq!(
        lines.next().unwrap(),
        "report_id,agent,connector_model,prompt,iteration,ttft_ms,total_ms,tokens_in,tokens_out,cost_usd,error,\
         asked_input_tokens,made_input_tokens,asked_output_tokens,cached_tokens"
    );
    assert!(lines.all(|l| l.ends_with(",,300,300,40,0") && l.contains(",302,40,")), "{csv}");
    let json: Value = serde_json::from_str(&exported(&report, "json").await).unwrap();
    assert_eq!(json["workload"], report["workload"]);
    let html = exported(&report, "html").await;
    assert!(html.contains("2 prompt tokens more than asked in every request"), "the notes are in the HTML export");

    // A workload file: lengths drawn from distributions, the same again with the same seed.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("chat.toml");
    std::fs::write(
        &file,
        "kind = \"synthetic\"\nrequests = 12\nseed = 7\n\n[input]\nkind = \"uniform\"\nmin = 20\nmax = 400\n\n\
         [output]\nkind = \"normal\"\nmean = 30\nsd = 10\nmin = 5\nmax = 60\n",
    )
    .unwrap();
    let args = [&common_args[..], &["--workload", file.to_str().unwrap()]].concat();
    let (code, first, output) = bench_report(&args).await;
    assert_eq!(code, 0, "{output}");
    let asked = column(&first, "askedInputTokens");
    assert_eq!(asked.len(), 12);
    assert!(asked.iter().all(|n| (20..=400).contains(n)), "{asked:?}");
    assert!(asked.iter().collect::<std::collections::BTreeSet<_>>().len() > 6, "drawn, not fixed: {asked:?}");
    assert_eq!(column(&first, "madeInputTokens"), asked);
    assert_eq!(column(&first, "tokensOut"), column(&first, "askedOutputTokens"));
    let (_, again, _) = bench_report(&args).await;
    let by_request = |report: &Value| {
        let mut rows: Vec<(u64, u64, String)> = report["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                (
                    r["askedInputTokens"].as_u64().unwrap(),
                    r["askedOutputTokens"].as_u64().unwrap(),
                    r["prompt"].to_string(),
                )
            })
            .collect();
        rows.sort();
        rows
    };
    assert_eq!(by_request(&first), by_request(&again), "a seed sends the same requests");
}

#[tokio::test]
async fn impossible_workloads_are_refused_before_anything_is_sent() {
    let sim = sim::spawn_local(SimConfig::fixed_ms(1, 0, 5)).await.unwrap();
    let base = sim.base_url();
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        ("kind = \"synthetic\"\nrequests = 5\n[input]\nkind = \"uniform\"\nmin = 50\nmax = 10\n[output]\nkind = \"fixed\"\ntokens = 5\n", "workload.input.max"),
        ("kind = \"synthetic\"\nrequests = 5\n[input]\nkind = \"fixed\"\ntokens = 50\n[output]\nkind = \"logNormal\"\nmedian = 0\nsigma = 1\nmin = 1\nmax = 9\n", "workload.output.median"),
        ("kind = \"synthetic\"\nrequests = 5\n[input]\nkind = \"fixed\"\ntoken = 50\n", "unknown field `token`"),
        ("kind = \"synthetic\"\nrequests = \"many\"\n", "invalid type"),
    ];
    for (i, (text, expected)) in cases.into_iter().enumerate() {
        let file = dir.path().join(format!("{i}.toml"));
        std::fs::write(&file, text).unwrap();
        let args = ["--base-url", base.as_str(), "--model", "m", "--workload", file.to_str().unwrap()];
        let (code, report, output) = bench_report(&args).await;
        assert_ne!(code, 0, "{text}");
        assert!(output.contains(expected), "{expected} in:\n{output}");
        assert_eq!(report, Value::Null, "nothing written");
    }
    let stats: Value = reqwest::get(format!("http://{}/sim/stats", sim.addr())).await.unwrap().json().await.unwrap();
    assert_eq!(stats["completed"], 0, "nothing was sent");

    let (code, _, output) = bench_report(&[
        "--base-url",
        &base,
        "--model",
        "m",
        "--prompt",
        "hi",
        "--input-tokens",
        "5",
        "--output-tokens",
        "5",
    ])
    .await;
    assert_ne!(code, 0);
    assert!(output.contains("prompts or a workload, not both"), "{output}");

    // A server without /tokenize: said at once, with nothing measured.
    let hostile =
        sim::spawn_hostile(sim::Hostile::parse("html-error").unwrap(), "127.0.0.1:0".parse().unwrap()).await.unwrap();
    let args = ["--base-url", &hostile.base_url(), "--model", "m", "--input-tokens", "5", "--output-tokens", "5"];
    let (code, _, output) = bench_report(&args).await;
    assert_ne!(code, 0);
    assert!(output.contains("no /tokenize that latency-guard speaks"), "{output}");
}
