//! `bench` with a synthetic workload: prompts of an exact length by the server's own tokenizer, answers of an
//! asked length, each request's asked lengths recorded beside what the server reported; against the simulator,
//! whose tokenizer and chat template are known (a prompt of N tokens is N + 2 prompt tokens to it).

use crate::common;

use latency_guard::sim::{self, SimConfig};
use serde_json::Value;

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
    let (code, report, output) = common::bench_report(&args).await;
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
         sent_at_ms,tpot_ms,itl_ms,cached_tokens,asked_input_tokens,made_input_tokens,asked_output_tokens"
    );
    assert!(lines.all(|l| l.ends_with(",0,300,300,40") && l.contains(",302,40,")), "{csv}");
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
    let (code, first, output) = common::bench_report(&args).await;
    assert_eq!(code, 0, "{output}");
    let asked = column(&first, "askedInputTokens");
    assert_eq!(asked.len(), 12);
    assert!(asked.iter().all(|n| (20..=400).contains(n)), "{asked:?}");
    assert!(asked.iter().collect::<std::collections::BTreeSet<_>>().len() > 6, "drawn, not fixed: {asked:?}");
    assert_eq!(column(&first, "madeInputTokens"), asked);
    assert_eq!(column(&first, "tokensOut"), column(&first, "askedOutputTokens"));
    let (_, again, _) = common::bench_report(&args).await;
    // The same lengths and text, each after a mark of its run: the second run's marks are its own.
    let by_request = |report: &Value| {
        let mut rows: Vec<(u64, u64, String, String)> = report["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                let (mark, text) = common::unmarked(r["prompt"].as_str().unwrap());
                let run_mark = mark.split('-').next().unwrap().to_string();
                let (input, output) =
                    (r["askedInputTokens"].as_u64().unwrap(), r["askedOutputTokens"].as_u64().unwrap());
                (input, output, text.to_string(), run_mark)
            })
            .collect();
        rows.sort();
        rows
    };
    let (first, again) = (by_request(&first), by_request(&again));
    let sent = |rows: &[(u64, u64, String, String)]| rows.iter().map(|r| (r.0, r.1, r.2.clone())).collect::<Vec<_>>();
    assert_eq!(sent(&first), sent(&again), "a seed sends the same requests");
    assert!(first.iter().all(|r| r.3 == first[0].3) && again[0].3 != first[0].3, "one mark a run: {first:?} {again:?}");
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
        let (code, report, output) = common::bench_report(&args).await;
        assert_ne!(code, 0, "{text}");
        assert!(output.contains(expected), "{expected} in:\n{output}");
        assert_eq!(report, Value::Null, "nothing written");
    }
    let stats: Value = reqwest::get(format!("http://{}/sim/stats", sim.addr())).await.unwrap().json().await.unwrap();
    assert_eq!(stats["completed"], 0, "nothing was sent");

    let (code, _, output) = common::bench_report(&[
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

    // A server without /tokenize, and without anything else: the prompts are estimates, and said to be.
    let hostile =
        sim::spawn_hostile(sim::Hostile::parse("html-error").unwrap(), "127.0.0.1:0".parse().unwrap()).await.unwrap();
    let args = ["--base-url", &hostile.base_url(), "--model", "m", "--input-tokens", "5", "--output-tokens", "5"];
    let (code, _, output) = common::bench_report(&args).await;
    assert_ne!(code, 0, "every request failed");
    assert!(output.contains("tokenizer      an estimate: OpenAI's o200k_base BPE"), "{output}");
}

/// The median of `values`.
fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// A shared-prefix workload against the simulator's prefix cache, whose model is known: two groups with a
/// 320-token prefix and a 40-token suffix are 362 prompt tokens each (with the role and the answer's start); after
/// each group's first request, the role and the prefix (321 tokens) fill 20 whole blocks of 16, so 320 tokens are
/// cached, and at 200 µs of prefill a token the first token comes 64 ms sooner (72.4 ms of prefill instead of 8.4).
#[tokio::test]
async fn a_shared_prefix_is_served_from_the_cache_by_the_simulators_model() {
    let config = SimConfig { prefill_per_token: std::time::Duration::from_micros(200), ..SimConfig::fixed_ms(1, 0, 4) };
    let sim = sim::spawn_local(config).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("shared.toml");
    std::fs::write(
        &file,
        "kind = \"sharedPrefix\"\ngroups = 2\nprefixTokens = 320\nrequests = 8\nseed = 3\n\
         [suffix]\nkind = \"fixed\"\ntokens = 40\n[output]\nkind = \"fixed\"\ntokens = 4\n",
    )
    .unwrap();
    let args = ["--base-url", &sim.base_url(), "--model", "m", "-c", "1", "--workload", file.to_str().unwrap()];
    let (code, report, output) = common::bench_report(&args).await;
    assert_eq!(code, 0, "{output}");
    assert_eq!(column(&report, "madeInputTokens"), [360; 8]);
    assert_eq!(column(&report, "tokensIn"), [362; 8]);
    assert_eq!(column(&report, "cachedTokens"), [0, 0, 320, 320, 320, 320, 320, 320], "each group's first is cold");
    let ttft: Vec<f64> = report["results"].as_array().unwrap().iter().map(|r| r["ttftMs"].as_f64().unwrap()).collect();
    let (cold, warm) = (median(ttft[..2].to_vec()), median(ttft[2..].to_vec()));
    assert!(cold >= 73.4 && warm >= 9.4, "the model's prefill is a floor: cold {cold} ms, warm {warm} ms");
    assert!(cold - warm > 64.0 - 20.0, "64 ms sooner, within 20 ms: cold {cold} ms, warm {warm} ms");
    let prompts: Vec<&str> =
        report["results"].as_array().unwrap().iter().map(|r| r["prompt"].as_str().unwrap()).collect();
    let shared = |a: &str, b: &str| a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
    assert!(
        shared(prompts[0], prompts[2]) > 500,
        "a group's requests share their prefix's text (rows keep 1,000 characters)"
    );
    assert!(shared(prompts[0], prompts[1]) < 20, "two groups do not");
    assert!(report["honesty"].to_string().contains("only the prefix is shared"));
    common::assert_report_schema(&report);
}

/// Prompt lengths drawn from a histogram file beside the workload file (a dataset's lengths measured elsewhere).
#[tokio::test]
async fn lengths_come_from_a_histogram_file_named_by_the_workload() {
    let sim = sim::spawn_local(SimConfig::fixed_ms(1, 0, 4)).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("lengths.csv"), "tokens,count\n30,1\n90,1\n").unwrap();
    let file = dir.path().join("w.toml");
    std::fs::write(
        &file,
        "kind = \"synthetic\"\nrequests = 20\n[input]\nkind = \"histogram\"\nfile = \"lengths.csv\"\n\
         [output]\nkind = \"fixed\"\ntokens = 3\n",
    )
    .unwrap();
    let (code, report, output) =
        common::bench_report(&["--base-url", &sim.base_url(), "--model", "m", "--workload", file.to_str().unwrap()])
            .await;
    assert_eq!(code, 0, "{output}");
    let asked = column(&report, "askedInputTokens");
    assert!(asked.contains(&30) && asked.contains(&90) && asked.iter().all(|n| [30, 90].contains(n)), "{asked:?}");
    assert_eq!(column(&report, "madeInputTokens"), asked);
}

/// A multi-turn workload against the simulator, whose tokenizer, template and prefix cache are known: each of two
/// conversations sends a first message of 100 tokens, then two of 20, and gets answers of 8. Turn 1 is 102 prompt
/// tokens (a role before the message, the answer's start after it); each later turn adds the answer (8), a role,
/// the new message and the answer's start: 132, then 162. After an answer the cache keeps the prompt and the
/// answer in whole 16-token blocks: 110 → 96 tokens, 140 → 128. At 1 ms of prefill per uncached token, turn 1
/// waits 102 ms for its first token, turn 2 waits 36 and turn 3 34: the first token comes at least 60 ms sooner
/// (66 by the model, allowing 6 ms of scheduling noise). Each later turn goes 20 ms after the answer before it.
#[tokio::test]
async fn a_conversation_carries_its_answers_and_later_turns_come_sooner_from_the_simulators_cache() {
    let config = SimConfig { prefill_per_token: std::time::Duration::from_millis(1), ..SimConfig::fixed_ms(1, 0, 8) };
    let sim = sim::spawn_local(config).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("chat.toml");
    std::fs::write(
        &file,
        "kind = \"multiTurn\"\nusers = 2\nturns = 3\nseed = 5\n\
         first = { kind = \"fixed\", tokens = 100 }\nfollowUp = { kind = \"fixed\", tokens = 20 }\n\
         output = { kind = \"fixed\", tokens = 8 }\nthink = { kind = \"fixed\", ms = 20 }\n",
    )
    .unwrap();
    let args = ["--base-url", &sim.base_url(), "--model", "m", "-c", "2", "--workload", file.to_str().unwrap()];
    let (code, report, output) = common::bench_report(&args).await;
    assert_eq!(code, 0, "{output}");
    let mut rows: Vec<&Value> = report["results"].as_array().unwrap().iter().collect();
    rows.sort_by_key(|r| r["promptIndex"].as_u64());
    let of =
        |key: &str| rows.iter().map(|r| r[key].as_u64().unwrap_or_else(|| panic!("{key}: {r}"))).collect::<Vec<_>>();
    assert_eq!(of("askedInputTokens"), [100, 20, 20, 100, 20, 20], "a turn's own message, as asked");
    assert_eq!(of("tokensIn"), [102, 132, 162, 102, 132, 162], "every answer went back in the next turn");
    assert_eq!(of("cachedTokens"), [0, 96, 128, 0, 96, 128]);
    for pair in rows.windows(2).filter(|w| w[1]["promptIndex"].as_u64().unwrap() % 3 != 0) {
        let answered = pair[0]["sentAtMs"].as_f64().unwrap() + pair[0]["totalMs"].as_f64().unwrap();
        let next = pair[1]["sentAtMs"].as_f64().unwrap();
        assert!(next - answered >= 19.0, "a turn waits its think time after the answer: {answered} → {next}");
    }
    let by_turn = report["workload"]["byTurn"].as_array().unwrap();
    let figure = |turn: usize, key: &str| by_turn[turn][key].as_f64().unwrap();
    assert_eq!(by_turn.len(), 3);
    assert_eq!(
        (figure(0, "promptTokensMean"), figure(1, "cachedTokensMean"), figure(2, "cachedTokensMean")),
        (102.0, 96.0, 128.0)
    );
    let (first, second, third) = (figure(0, "ttftP50Ms"), figure(1, "ttftP50Ms"), figure(2, "ttftP50Ms"));
    assert!(
        first >= 102.0 && second >= 36.0 && third >= 34.0,
        "the model's prefill is a floor: {first} {second} {third}"
    );
    assert!(first - second >= 60.0 && first - third >= 60.0, "sooner by the cache: {first} {second} {third}");
    assert_eq!(report["workload"]["conversations"], serde_json::json!({"started": 2, "completed": 2}));
    assert!(output.contains("turn") && output.contains("cached tokens"), "bench prints the table by turn: {output}");
    assert!(report["honesty"].to_string().contains("By turn: every turn sends the conversation before it"));
    common::assert_report_schema(&report);
    let csv = exported(&report, "csv").await;
    assert_eq!(csv.lines().count(), 7, "a header and six turns");
}

/// A server without `/tokenize` (as hosted providers are): with the model's tokenizer.json (`--tokenizer`) the
/// prompts are cut with it — here one character a token, so a prompt of 300 tokens is 300 characters, which the
/// test counts itself — and the report names the file; with nothing, the prompts are cut with OpenAI's o200k_base
/// BPE and every note says the lengths are estimates. A tokenizer.json that does not parse is refused before
/// anything is sent.
#[tokio::test]
async fn without_a_tokenize_the_prompts_are_cut_with_a_tokenizer_file_or_flagged_as_estimates() {
    let config = SimConfig { tokenize: false, ..SimConfig::fixed_ms(1, 0, 5) };
    let sim = sim::spawn_local(config).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let vocab: serde_json::Map<String, Value> = std::iter::once("[UNK]".to_string())
        .chain((32u8..127).map(|c| (c as char).to_string()))
        .enumerate()
        .map(|(i, t)| (t, Value::from(i)))
        .collect();
    let chars = serde_json::json!({"version": "1.0", "truncation": null, "padding": null, "added_tokens": [],
        "normalizer": null, "pre_tokenizer": {"type": "Split", "pattern": {"String": ""}, "behavior": "Isolated",
        "invert": false}, "post_processor": null, "decoder": {"type": "Fuse"},
        "model": {"type": "WordLevel", "vocab": vocab, "unk_token": "[UNK]"}});
    let tokenizer = dir.path().join("tokenizer.json");
    std::fs::write(&tokenizer, chars.to_string()).unwrap();
    let base = sim.base_url();
    let args =
        ["--base-url", base.as_str(), "--model", "m", "--input-tokens", "300", "--output-tokens", "4", "-n", "3"];
    let (code, report, output) =
        common::bench_report(&[&args[..], &["--tokenizer", tokenizer.to_str().unwrap()]].concat()).await;
    assert_eq!(code, 0, "{output}");
    assert_eq!(report["workload"]["tokenizer"]["kind"], "file", "{}", report["workload"]);
    for row in report["results"].as_array().unwrap() {
        assert_eq!(row["madeInputTokens"], 300);
        assert_eq!(row["prompt"].as_str().unwrap().chars().count(), 300, "one character a token: {row}");
    }
    assert!(report["honesty"].to_string().contains("the model's tokenizer.json given to bench"));

    let (code, report, output) = common::bench_report(&args).await;
    assert_eq!(code, 0, "{output}");
    assert_eq!(report["workload"]["tokenizer"], serde_json::json!({"kind": "estimate", "vocabulary": "o200k_base"}));
    assert!(report["honesty"].to_string().contains("Prompt lengths are estimates"), "{}", report["honesty"]);
    common::assert_report_schema(&report);

    let broken = dir.path().join("broken.json");
    std::fs::write(&broken, "{\"model\": {\"type\": \"BPE\"").unwrap();
    let (code, report, output) =
        common::bench_report(&[&args[..], &["--tokenizer", broken.to_str().unwrap()]].concat()).await;
    assert_ne!(code, 0);
    assert!(output.contains("--tokenizer: the tokenizer") && output.contains("broken.json"), "{output}");
    assert!(report.is_null(), "nothing was sent");
}
