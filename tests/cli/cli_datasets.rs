//! `bench` with a dataset (`--dataset`, rows sent as written) and a trace (`--trace`, requests replayed at their
//! recorded instants), against the simulator, and the files they refuse.

use crate::common;

use latency_guard::sim::{self, SimConfig};
use serde_json::Value;

fn rows(report: &Value) -> Vec<&Value> {
    let mut rows: Vec<&Value> = report["results"].as_array().unwrap().iter().filter(|r| r["warmup"] != true).collect();
    rows.sort_by_key(|r| r["seq"].as_u64());
    rows
}

/// One dataset in each shape and format: every row is sent as written, in the file's order after the warm-up's,
/// each answer as long as its row's `output_tokens` (with `ignore_eos`), else `--output-tokens`, else the
/// simulator's own 5 tokens under the token budget.
#[tokio::test]
async fn a_dataset_sends_its_rows_as_written_in_every_format() {
    let sim = sim::spawn_local(SimConfig::fixed_ms(1, 0, 5)).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let jsonl = dir.path().join("rows.jsonl");
    std::fs::write(
        &jsonl,
        "{\"prompt\": \"warm up first\"}\n\
         {\"prompt\": \"what is a token\", \"output_tokens\": 12}\n\n\
         {\"messages\": [{\"role\": \"system\", \"content\": \"be brief\"}, {\"role\": \"user\", \"content\": \"why is the sky blue\"}]}\n\
         {\"conversations\": [{\"from\": \"human\", \"value\": \"tell me a joke\"}, {\"from\": \"gpt\", \"value\": \"no\"}]}\n",
    )
    .unwrap();
    let base = sim.base_url();
    let args = ["--base-url", base.as_str(), "--model", "m", "--warmup", "1", "--dataset", jsonl.to_str().unwrap()];
    let (code, report, output) = common::bench_report(&args).await;
    assert_eq!(code, 0, "{output}");
    // Each after its run's and request's mark; a row with a system prompt carries the mark there, first.
    let sent: Vec<(&str, Option<u64>)> =
        rows(&report).iter().map(|r| (r["prompt"].as_str().unwrap(), r["tokensOut"].as_u64())).collect();
    let (first, third) = (common::unmarked(sent[0].0).1, common::unmarked(sent[2].0).1);
    assert_eq!(
        [(first, sent[0].1), sent[1], (third, sent[2].1)],
        [("what is a token", Some(12)), ("why is the sky blue", Some(5)), ("tell me a joke", Some(5))]
    );
    assert_eq!(report["workload"]["spec"]["kind"], "dataset");
    assert_eq!(report["workload"]["spec"]["file"]["rows"], 4);
    assert!(report["workload"]["servedInput"]["n"] == 3, "{}", report["workload"]);
    assert!(report["honesty"].to_string().contains("Each request sends one row as written"));
    assert!(output.contains("prompt tokens  server counted"), "{output}");
    common::assert_report_schema(&report);

    let json = dir.path().join("rows.json");
    std::fs::write(&json, "[{\"prompt\": \"one\"}, {\"prompt\": \"two\", \"output_tokens\": 3}]").unwrap();
    let args =
        ["--base-url", base.as_str(), "--model", "m", "--output-tokens", "7", "--dataset", json.to_str().unwrap()];
    let (code, report, output) = common::bench_report(&args).await;
    assert_eq!(code, 0, "{output}");
    let out: Vec<Option<u64>> = rows(&report).iter().map(|r| r["tokensOut"].as_u64()).collect();
    assert_eq!(out, [Some(7), Some(3)], "--output-tokens for a row that gives none");

    let csv = dir.path().join("rows.csv");
    std::fs::write(&csv, "id,prompt,output_tokens\n1,\"a prompt, with a comma\",4\n2,plain,\n3,third,2\n").unwrap();
    let args = ["--base-url", base.as_str(), "--model", "m", "-n", "2", "--dataset", csv.to_str().unwrap()];
    let (code, report, output) = common::bench_report(&args).await;
    assert_eq!(code, 0, "{output}");
    let sent: Vec<&str> = rows(&report).iter().map(|r| common::unmarked(r["prompt"].as_str().unwrap()).1).collect();
    assert_eq!(sent, ["a prompt, with a comma", "plain"], "-n sends the first rows");
}

/// A bad row, a file of another kind, more rows asked than the file has: refused with the file and the row named,
/// before anything is sent (the endpoint here is a port nothing listens on).
#[tokio::test]
async fn a_dataset_or_trace_that_cannot_be_sent_is_refused_with_its_row() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        path.to_str().unwrap().to_string()
    };
    let cases = [
        (vec!["--dataset".to_string(), write("bad.jsonl", "{\"prompt\": \"a\"}\n{\"prompt\": \"b\"}\n{\"messages\": 3}\n")], "bad.jsonl: row 3: invalid type"),
        (vec!["--dataset".to_string(), write("bad.csv", "prompt,output_tokens\na,1\nb,2,3\n")], "bad.csv: row 3: 3 fields where the header has 2"),
        (vec!["--dataset".to_string(), write("rows.txt", "a\n")], "a dataset is .jsonl (or .ndjson), .json (an array) or .csv"),
        (vec!["--dataset".to_string(), write("two.jsonl", "{\"prompt\": \"a\"}\n{\"prompt\": \"b\"}\n"), "-n".into(), "3".into()], "workload.requests: 3 requests: must be between 1 and the file's 2 rows"),
        (
            vec!["--trace".to_string(), write("late.jsonl", "{\"timestamp\": 5, \"input_length\": 9, \"output_length\": 2}\n{\"timestamp\": 4, \"input_length\": 9, \"output_length\": 2}\n")],
            "late.jsonl: row 2: timestamp 4 ms is before the row above's 5 ms",
        ),
        (vec!["--trace".to_string(), write("t.jsonl", "{\"timestamp\": 5, \"input_length\": 9, \"output_length\": 2}\n"), "--speedup".into(), "0".into()], "workload.speedup: 0 is outside"),
    ];
    for (extra, expected) in cases {
        let mut args = vec!["--base-url", "http://127.0.0.1:9", "--model", "m"];
        args.extend(extra.iter().map(String::as_str));
        let (code, report, output) = common::bench_report(&args).await;
        assert_ne!(code, 0, "{extra:?}");
        assert!(output.contains(expected), "{extra:?}: {output}");
        assert!(!output.contains("could not be reached") && report.is_null(), "{extra:?}: nothing was sent: {output}");
    }
}

/// A Mooncake trace replayed twice as fast as recorded: each request goes out at half its recorded instant (within
/// the schedule lag the report keeps; 100 ms apart, so a busy machine's answers still end before the next sends),
/// at its recorded lengths; rows sharing a hash id share that block's text, so
/// the simulator finds it cached: the role token and the 64-token block fill 4 of its 16-token blocks.
#[tokio::test]
async fn a_trace_is_replayed_at_its_instants_with_its_blocks_shared() {
    let sim = sim::spawn_local(SimConfig::fixed_ms(1, 0, 5)).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("mooncake.jsonl");
    let lines: Vec<String> = (0..6)
        .map(|i| {
            format!(
                "{{\"timestamp\": {}, \"input_length\": {}, \"output_length\": {}, \"hash_ids\": [1, {}]}}",
                1_000 + i * 200,
                100 + i,
                3 + i,
                10 + i
            )
        })
        .collect();
    std::fs::write(&trace, lines.join("\n")).unwrap();
    let workload = dir.path().join("replay.toml");
    std::fs::write(&workload, "kind = \"trace\"\nfile = \"mooncake.jsonl\"\nspeedup = 2\nblockTokens = 64\nseed = 1\n")
        .unwrap();
    let base = sim.base_url();
    let args = [
        "--base-url",
        base.as_str(),
        "--model",
        "m",
        "--max-concurrency",
        "8",
        "--workload",
        workload.to_str().unwrap(),
    ];
    let (code, report, output) = common::bench_report(&args).await;
    assert_eq!(code, 0, "{output}");
    let replayed = rows(&report);
    assert_eq!(replayed.len(), 6);
    for (i, row) in replayed.iter().enumerate() {
        let due = i as f64 * 100.0;
        let sent = row["sentAtMs"].as_f64().unwrap();
        let lag = row["scheduleLagMs"].as_f64().unwrap();
        assert!((sent - lag - due).abs() < 1.0, "row {i} due at {due} ms, sent at {sent} ms with {lag} ms of lag");
        assert_eq!(row["madeInputTokens"], 100 + i as u64, "row {i}");
        assert_eq!(row["tokensIn"], 102 + i as u64, "the simulator's template adds 2");
        assert_eq!(row["tokensOut"], 3 + i as u64, "the recorded answer length");
    }
    // Block 1 is shared and each row's last block its own: a row sent after another row's answer ended finds the
    // shared block cached, and the first row to reach the server finds nothing. (A busy machine may send a row late,
    // beside or even after the next one, so which rows those are is read from the send and end times.)
    let cached: Vec<u64> = replayed.iter().map(|r| r["cachedTokens"].as_u64().unwrap()).collect();
    let sent = |r: &serde_json::Value| r["sentAtMs"].as_f64().unwrap();
    let ended = |r: &serde_json::Value| sent(r) + r["totalMs"].as_f64().unwrap();
    let after_an_answer: Vec<usize> =
        (0..replayed.len()).filter(|&i| replayed.iter().any(|other| ended(other) <= sent(replayed[i]))).collect();
    assert!(cached.contains(&0), "the first row to arrive finds nothing cached: {cached:?}");
    assert!(after_an_answer.len() >= 3, "rows sent after another's answer: {after_an_answer:?}");
    for i in after_an_answer {
        assert_eq!(cached[i], 64, "row {i}: {cached:?}");
    }
    assert!(report["honesty"].to_string().contains("Trace replay: each request is due at its recorded instant"));
    common::assert_report_schema(&report);

    let burst = dir.path().join("burst.csv");
    std::fs::write(&burst, "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n0,ChatGPT,40,4,44,Conversation log\n0.05,GPT-4,60,0,60,Conversation log\n").unwrap();
    let args = ["--base-url", base.as_str(), "--model", "m", "--trace", burst.to_str().unwrap()];
    let (code, report, output) = common::bench_report(&args).await;
    assert_eq!(code, 0, "{output}");
    let lengths: Vec<(u64, u64)> = rows(&report)
        .iter()
        .map(|r| (r["madeInputTokens"].as_u64().unwrap(), r["tokensOut"].as_u64().unwrap()))
        .collect();
    assert_eq!(lengths, [(40, 4), (60, 1)], "a BurstGPT row of 0 response tokens asks for 1");
}
