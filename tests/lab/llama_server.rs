//! Measurement against a real llama.cpp server (`llama-server` as embedded in the PyPI wheel xllamacpp, serving a
//! tiny model generated locally): real servers behave differently from the simulator. This one closes each
//! connection after a streamed response while advertising keep-alive; a healthy endpoint must still show a zero
//! error rate, and its own usage must be read as reported.
#![cfg(feature = "ssr")]
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a failing test should panic loudly")]

use crate::common;

use crate::common::llama::llama_server;
use serde_json::Value;

async fn bench(base_url: &str, extra: &[&str], out: &std::path::Path) -> (i32, Value, String) {
    let args = [
        &[
            "bench",
            "--allow-invalid",
            "--base-url",
            base_url,
            "--model",
            "tiny",
            "--prompt",
            "Say hi",
            "--max-tokens",
            "16",
            "-c",
            "1",
        ],
        extra,
        &["--out", out.to_str().unwrap()],
    ]
    .concat();
    let (code, stdout, stderr) = common::cli(&args, &[]).await;
    let report = serde_json::from_str(&std::fs::read_to_string(out).unwrap_or_default()).unwrap_or(Value::Null);
    (code, report, format!("{stdout}\n{stderr}"))
}

#[tokio::test]
async fn sequential_requests_to_a_real_llama_server_show_no_false_errors() {
    let Some(server) = llama_server(false).await else { return };
    let dir = tempfile::tempdir().unwrap();
    let mut reconnects = 0;
    // Before the engine re-sent requests lost on a closed keep-alive connection, 1 to 4 of every 30 failed here.
    for round in 0..3 {
        let (code, report, output) =
            bench(&server.base_url, &["-n", "30"], &dir.path().join(format!("{round}.json"))).await;
        assert_eq!(code, 0, "round {round}: {output}");
        let results = report["results"].as_array().unwrap();
        assert_eq!(results.len(), 30);
        for r in results {
            assert!(common::null_at(r, "/error"), "round {round}: {r}");
            assert_eq!(r["tokenSource"], "reported", "llama.cpp reports usage when asked: {r}");
            assert_eq!(r["tokensOut"], 16, "the tiny model never stops before max_tokens: {r}");
            let (ttft, total) = (r["ttftMs"].as_f64().unwrap(), r["totalMs"].as_f64().unwrap());
            assert!(ttft <= total);
            // 16 tokens, one a chunk: TPOT spans the 15 gaps after the first, inside TTFT → end. The tiny model makes
            // its 16 tokens in about 2 ms, and tokens that arrive in one read share that read's instant (they were
            // there together), so a gap may be 0 — never negative, never beyond the stream.
            let (tpot, itl, max) =
                (r["tpotMs"].as_f64().unwrap(), r["itlMs"].as_f64().unwrap(), r["maxItlMs"].as_f64().unwrap());
            assert!(tpot >= 0.0 && tpot * 15.0 <= total - ttft + 0.5, "round {round}: {r}");
            assert!(itl >= 0.0 && max >= itl && max <= total - ttft + 0.5, "round {round}: {r}");
            assert_eq!(r["firstOutputMs"], r["ttftMs"], "the tiny model does not reason");
        }
        // One at a time: each request is sent after the one before it ended.
        let sent: Vec<(f64, f64)> =
            results.iter().map(|r| (r["sentAtMs"].as_f64().unwrap(), r["totalMs"].as_f64().unwrap())).collect();
        assert!(sent.windows(2).all(|w| w[1].0 + 0.5 >= w[0].0 + w[0].1), "round {round}: {sent:?}");
        // The output throughput is the tokens the server itself counted over the measured span; one at a time, the
        // span holds every request's time end to end, and little besides.
        let (span, throughput) =
            (report["stats"]["spanS"].as_f64().unwrap(), report["stats"]["outputTokPerSec"].as_f64().unwrap());
        let request_s: f64 = sent.iter().map(|(_, total)| total / 1e3).sum();
        assert!(span >= request_s - 1e-3 && span <= request_s + 0.5, "round {round}: span {span} s, {request_s} s");
        assert!((throughput * span - 30.0 * 16.0).abs() < 1e-6, "round {round}: 30 × 16 tokens the server counted");
        assert!(report["stats"]["firstOutput"]["p50"].as_f64().is_some_and(|v| v > 0.0), "round {round}");
        // Tokens that arrive in one read share its instant (see above), so on a busy machine most gaps can be 0;
        // some of the 450 gaps were not.
        for key in ["tpot", "itl"] {
            let (p50, p99) = (report["stats"][key]["p50"].as_f64(), report["stats"][key]["p99"].as_f64());
            assert!(p50.is_some_and(|v| v >= 0.0), "round {round}: stats.{key}");
            assert!(p99.is_some_and(|v| v > 0.0), "round {round}: stats.{key}: {p99:?}");
        }
        reconnects += results.iter().map(|r| r["reconnects"].as_u64().unwrap()).sum::<u64>();
        common::assert_report_schema(&report);
        // What answered, in its replies' own words, is what the server says of itself at /props.
        let props: Value = reqwest::get(format!("{}/props", server.base_url.trim_end_matches("/v1")))
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        let (model, build) = (props["model_alias"].as_str().unwrap(), props["build_info"].as_str().unwrap());
        let expected = format!(
            "What answered: model {model} (30) in 30 of 30 replies; system_fingerprint {build} (30) in 30 of 30 \
             replies; Server header llama.cpp (30) in 30 of 30 replies."
        );
        assert!(report["honesty"].to_string().contains(&expected), "{expected}\n{}", report["honesty"]);
    }
    eprintln!("requests re-sent after llama-server closed a kept-alive connection: {reconnects} of 90");

    let (code, report, output) =
        bench(&server.base_url, &["-n", "10", "--no-stream"], &dir.path().join("json.json")).await;
    assert_eq!(code, 0, "{output}");
    assert!(report["results"]
        .as_array()
        .unwrap()
        .iter()
        .all(|r| common::null_at(r, "/error") && common::null_at(r, "/ttftMs")));
    assert!(report["results"]
        .as_array()
        .unwrap()
        .iter()
        .all(|r| common::null_at(r, "/tpotMs") && common::null_at(r, "/itlMs")));
    assert!(common::null_at(&report, "/stats/itl"), "not streamed: no inter-token latency");

    let (code, report, output) =
        bench(&server.base_url, &["-n", "10", "--fresh-connections"], &dir.path().join("fresh.json")).await;
    assert_eq!(code, 0, "{output}");
    let results = report["results"].as_array().unwrap();
    assert!(results.iter().all(|r| common::null_at(r, "/error") && r["reconnects"] == 0), "{results:?}");
    assert!(report["honesty"].to_string().contains("a fresh connection per request"));
}

/// Prompts of 64, 256 and 1,000 tokens made through the server's own `/tokenize` arrive counted as asked plus
/// the chat template's fixed overhead, measured here once and the same for all three: 51 tokens, which are the
/// beginning-of-sequence token, the space SentencePiece adds before a whole text, `<|im_start|>user\n` (17
/// one-character tokens of the tiny model) and `<|im_end|>\n<|im_start|>assistant\n` (33), less the space the
/// prompt's own count held. Answers told to ignore their end run to `max_tokens`, and the server's counts are read
/// from its own `usage`.
#[tokio::test]
async fn prompts_made_by_its_tokenize_arrive_at_their_length_and_answers_reach_max_tokens() {
    use latency_guard::engine::{measure, Call, HttpClient};
    use latency_guard::engine::{ServerTokenizer, TokenizeForm};
    use latency_guard::workload::service::{exact_prompt, Tokenizer};
    let Some(server) = llama_server(false).await else { return };
    let client = HttpClient::new().unwrap();
    let target = common::any_target(&server.base_url, None, &[]);
    let tokenizer = ServerTokenizer::discover(&client, &target, "tiny").await.unwrap();
    assert_eq!(tokenizer.form(), TokenizeForm::LlamaCpp);
    let mut overheads = Vec::new();
    for (asked, seed) in [(64u32, 1u64), (256, 2), (1_000, 3)] {
        let made = exact_prompt(&Tokenizer::Server(tokenizer.clone()), asked, seed).await.unwrap();
        assert_eq!(made.tokens, asked as usize, "{asked} asked: {:?}", made.text);
        let mut request = common::chat_request("tiny", &made.text, 24, false);
        request.ignore_eos = true;
        let timeout = std::time::Duration::from_secs(60);
        let call = Call { target: &target, request: &request, timeout, intended: tokio::time::Instant::now() };
        let m = measure(&client, call).await;
        assert_eq!(m.error, None, "{asked}");
        assert_eq!(m.token_source, latency_guard::model::TokenSource::Reported);
        assert_eq!(m.tokens_out, Some(24), "ignore_eos: the answer runs to max_tokens");
        assert_eq!(m.finish_reason.as_deref(), Some("length"));
        overheads.push(m.tokens_in.unwrap() - u64::from(asked));
    }
    assert_eq!(overheads, [51, 51, 51], "one fixed overhead: the chat template's");
}

/// `bench` of a workload file against the real server, one request at a time: the report.
async fn bench_workload(base_url: &str, workload: &str, extra: &[&str]) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let (file, out) = (dir.path().join("workload.toml"), dir.path().join("report.json"));
    std::fs::write(&file, workload).unwrap();
    let args = [
        "bench",
        "--allow-invalid",
        "--base-url",
        base_url,
        "--model",
        "tiny",
        "-c",
        "1",
        "--workload",
        file.to_str().unwrap(),
    ];
    let (code, stdout, stderr) =
        common::cli(&[&args[..], extra, &["--out", out.to_str().unwrap()]].concat(), &[]).await;
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    serde_json::from_str(&std::fs::read_to_string(out).unwrap()).unwrap()
}

/// The tokens each request of `report` found in llama.cpp's cache (`timings.cache_n`).
fn cached_tokens(report: &Value) -> Vec<u64> {
    let results = report["results"].as_array().unwrap();
    assert!(results.iter().all(|r| common::null_at(r, "/error")), "{results:?}");
    results.iter().map(|r| r["cachedTokens"].as_u64().expect("llama.cpp reports cached tokens")).collect()
}

/// Two runs of one workload, the same seed making the same prompts, against llama.cpp's prompt cache (its slots and
/// its cache of earlier prompts): each prompt starts with a mark of its run and request, so the second run, like the
/// first, finds at most the chat template's first tokens cached and measures uncached prefills, and its report says
/// how. With the marks turned off (`--no-prompt-heads`) a second run finds nearly its whole prompts cached, as every
/// run did before marks existed, and its report warns.
#[tokio::test]
async fn a_second_identical_run_measures_uncached_prefills_unless_marks_are_turned_off() {
    let Some(server) = llama_server(false).await else { return };
    let workload = "kind = \"synthetic\"\nrequests = 4\n[input]\nkind = \"fixed\"\ntokens = 300\n\
                    [output]\nkind = \"fixed\"\ntokens = 2\n";
    let honesty =
        |report: &Value| report["honesty"].as_array().unwrap().iter().map(|n| n.to_string()).collect::<Vec<_>>();
    for run in ["first", "second"] {
        let report = bench_workload(&server.base_url, workload, &[]).await;
        let cached = cached_tokens(&report);
        assert!(cached.iter().all(|&c| c < 40), "{run} run: only the template's first tokens: {cached:?}");
        let notes = honesty(&report);
        assert!(notes.iter().any(|n| n.contains("Prompt marks: each prompt began with a mark")), "{notes:?}");
        assert!(!notes.iter().any(|n| n.contains("Warning: ")), "{run} run: {notes:?}");
    }
    bench_workload(&server.base_url, workload, &["--no-prompt-heads"]).await;
    let again = bench_workload(&server.base_url, workload, &["--no-prompt-heads"]).await;
    let cached = cached_tokens(&again);
    assert!(cached.iter().all(|&c| c >= 290), "unmarked prompts are found again: {cached:?}");
    let notes = honesty(&again);
    assert!(notes.iter().any(|n| n.contains("Warning: 4 of 4 request(s) meant to share nothing")), "{notes:?}");
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// A shared-prefix workload against llama.cpp's prompt cache: after the first request, each finds the 1,500-token
/// prefix in its slot (`timings.cache_n`), and its time to first token is lower than that of the same lengths
/// without sharing, where only the chat template's first tokens are ever cached.
#[tokio::test]
async fn a_shared_prefix_is_cached_by_llama_cpp_and_answers_sooner_than_unshared_prompts() {
    let Some(server) = llama_server(false).await else { return };
    let shared = bench_workload(
        &server.base_url,
        "kind = \"sharedPrefix\"\ngroups = 1\nprefixTokens = 1500\nrequests = 9\n\
         [suffix]\nkind = \"fixed\"\ntokens = 50\n[output]\nkind = \"fixed\"\ntokens = 4\n",
        &[],
    )
    .await;
    let unshared = bench_workload(
        &server.base_url,
        "kind = \"synthetic\"\nrequests = 9\n[input]\nkind = \"fixed\"\ntokens = 1550\n\
         [output]\nkind = \"fixed\"\ntokens = 4\n",
        &[],
    )
    .await;
    let figures = |report: &Value| -> (Vec<u64>, Vec<f64>) {
        let results = report["results"].as_array().unwrap();
        assert!(results.iter().all(|r| common::null_at(r, "/error")), "{results:?}");
        (
            results.iter().map(|r| r["cachedTokens"].as_u64().expect("llama.cpp reports cached tokens")).collect(),
            results.iter().map(|r| r["ttftMs"].as_f64().unwrap()).collect(),
        )
    };
    let (shared_cached, shared_ttft) = figures(&shared);
    let (unshared_cached, unshared_ttft) = figures(&unshared);
    assert!(shared_cached[1..].iter().all(|&c| c >= 1_500), "the prefix is cached after the first: {shared_cached:?}");
    assert!(unshared_cached.iter().all(|&c| c < 100), "only the template's first tokens: {unshared_cached:?}");
    let (warm, cold) = (median(shared_ttft[1..].to_vec()), median(unshared_ttft));
    assert!(warm < cold, "shared prefix: median TTFT {warm} ms; unshared: {cold} ms");
}

/// A multi-turn workload against llama.cpp: every later turn sends the conversation back (the server counts the
/// earlier messages and answers in its prompt), finds it in its slot's cache (`timings.cache_n` at least the first
/// message's 1,500 tokens), and the report has TTFT, prompt and cached tokens by turn, the later turns' first
/// tokens sooner than the first's.
#[tokio::test]
async fn a_conversation_is_sent_back_each_turn_and_reported_by_turn() {
    let Some(server) = llama_server(false).await else { return };
    let report = bench_workload(
        &server.base_url,
        "kind = \"multiTurn\"\nusers = 3\nturns = 3\nseed = 2\nfirst = { kind = \"fixed\", tokens = 1500 }\n\
         followUp = { kind = \"fixed\", tokens = 40 }\noutput = { kind = \"fixed\", tokens = 12 }\n",
        &[],
    )
    .await;
    let results = report["results"].as_array().unwrap();
    assert_eq!(results.len(), 9);
    assert!(results.iter().all(|r| common::null_at(r, "/error")), "{results:?}");
    let by_turn = report["workload"]["byTurn"].as_array().unwrap();
    let figure = |turn: usize, key: &str| by_turn[turn][key].as_f64().unwrap_or_else(|| panic!("{key}: {by_turn:?}"));
    // 1,500 tokens and the template's 51; then each turn adds an answer of about 12 tokens (counted again as text),
    // a message of 40 and the template's tokens around both.
    assert_eq!(figure(0, "promptTokensMean"), 1_551.0);
    for turn in 1..3 {
        let grown = figure(turn, "promptTokensMean") - figure(turn - 1, "promptTokensMean");
        assert!((40.0 + 12.0..=40.0 + 12.0 + 120.0).contains(&grown), "turn {}: {grown} more tokens", turn + 1);
        assert!(figure(turn, "cachedTokensMean") >= 1_500.0, "turn {}: {by_turn:?}", turn + 1);
        assert!(
            figure(turn, "ttftP50Ms") < figure(0, "ttftP50Ms"),
            "a cached conversation answers sooner: {by_turn:?}"
        );
    }
    assert_eq!(report["workload"]["conversations"]["completed"], 3);
}

/// Prompts cut offline with the model's own tokenizer.json (`--tokenizer`, for a server without `/tokenize`)
/// arrive at the length the server's `/tokenize` counts, and with the same 51 tokens of chat template around
/// them as prompts cut through `/tokenize`: the file's tokenizer is the server's.
#[tokio::test]
async fn prompts_cut_with_the_models_tokenizer_json_count_as_the_server_counts_them() {
    use latency_guard::engine::ServerTokenizer;
    use latency_guard::engine::{measure, Call, HttpClient};
    use latency_guard::workload::service::{exact_prompt, FileTokenizer, Tokenizer};
    let Some(server) = llama_server(false).await else { return };
    let file = Tokenizer::File(FileTokenizer::open(&server.tokenizer_json()).unwrap());
    let client = HttpClient::new().unwrap();
    let target = common::any_target(&server.base_url, None, &[]);
    let served = ServerTokenizer::discover(&client, &target, "tiny").await.unwrap();
    for (asked, seed) in [(64u32, 7u64), (256, 8), (1_000, 9)] {
        let made = exact_prompt(&file, asked, seed).await.unwrap();
        assert_eq!(made.tokens, asked as usize);
        assert_eq!(served.count(&made.text).await.unwrap(), asked as usize, "the server's /tokenize agrees");
        let request = common::chat_request("tiny", &made.text, 4, false);
        let timeout = std::time::Duration::from_secs(60);
        let call = Call { target: &target, request: &request, timeout, intended: tokio::time::Instant::now() };
        let m = measure(&client, call).await;
        assert_eq!(m.error, None, "{asked}");
        assert_eq!(
            m.tokens_in,
            Some(u64::from(asked) + 51),
            "{asked}: the chat template's 51 tokens, as measured above"
        );
    }
}

/// A ShareGPT file as public ones come: conversations with no human turn (an empty one, one of the model's turn
/// alone) are skipped and counted, not the file refused; the others are sent up to their first human turn (the
/// turns after it are not), each asking its recorded answer's length (`--recorded-outputs`) as llama.cpp's own
/// `/tokenize` counts that answer, and the answers reach it (`ignore_eos`).
#[tokio::test]
async fn a_sharegpt_file_skips_rows_with_nothing_to_send_and_asks_the_recorded_answers_lengths() {
    use latency_guard::engine::{HttpClient, ServerTokenizer};
    let Some(server) = llama_server(false).await else { return };
    let answers = ["Paris.", "Two plus two is four, as every child learns at school.", "Yes, it is."];
    let turn = |from: &str, value: &str| serde_json::json!({"from": from, "value": value});
    let mut rows = vec![serde_json::json!({"conversations": []})];
    for (i, answer) in answers.iter().enumerate() {
        let later = [turn("human", "and then?"), turn("gpt", "then nothing more")];
        let first = [turn("human", &format!("question {i}")), turn("gpt", answer)];
        let conversation = [&first[..], &later[..]].concat();
        rows.push(serde_json::json!({ "conversations": conversation }));
    }
    rows.push(serde_json::json!({"conversations": [turn("gpt", "an answer to nothing")]}));
    let dir = tempfile::tempdir().unwrap();
    let (file, out) = (dir.path().join("sharegpt.json"), dir.path().join("report.json"));
    std::fs::write(&file, serde_json::to_string(&rows).unwrap()).unwrap();
    let args = [
        "bench",
        "--allow-invalid",
        "--base-url",
        &server.base_url,
        "--model",
        "tiny",
        "-c",
        "1",
        "--recorded-outputs",
    ];
    let (code, stdout, stderr) =
        common::cli(&[&args[..], &["--dataset", file.to_str().unwrap(), "--out", out.to_str().unwrap()]].concat(), &[])
            .await;
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert!(stderr.contains("2 row(s) skipped"), "{stderr}");
    let report: Value = serde_json::from_str(&std::fs::read_to_string(out).unwrap()).unwrap();
    let results = report["results"].as_array().unwrap();
    assert_eq!(results.len(), 3, "the three rows with a human turn: {results:?}");
    let served = ServerTokenizer::discover(
        &HttpClient::new().unwrap(),
        &common::any_target(&server.base_url, None, &[]),
        "tiny",
    )
    .await
    .unwrap();
    for (r, answer) in results.iter().zip(answers) {
        assert!(common::null_at(r, "/error"), "{r}");
        let counted = served.count(answer).await.unwrap() as u64;
        assert_eq!(r["askedOutputTokens"].as_u64(), Some(counted), "the server's count of {answer:?}: {r}");
        assert_eq!(r["tokensOut"].as_u64(), Some(counted), "the answer reaches it: {r}");
    }
    let notes = report["honesty"].to_string();
    assert!(notes.contains("3 rows; 2 skipped, no human turn"), "{notes}");
    assert!(notes.contains("the turns after it are not sent"), "{notes}");
    assert!(notes.contains("else its recorded answer's length"), "{notes}");
}
