//! Spec Lab's A/B test against real llama.cpp servers (the xllamacpp wheel, a tiny local model): a plain server as
//! the baseline, the same model drafting for itself as the candidate. The drafted and accepted tokens the report
//! shows are the server's own counters, and equal the sums of the replies' `timings`; a restart of the server
//! during the work is caught.
#![cfg(feature = "ssr")]
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a failing test should panic loudly")]

use crate::common;

use crate::common::llama::{llama_server, llama_server_at};
use latency_guard::engine::{HttpClient, RequestTarget};
use latency_guard::lab::model::AbTestSummary;
use latency_guard::model::{ServerKind, SpecOutcome, PROCESS_START};
use latency_guard::probe::{record_during, scrape, FetchFailure, ScrapeError};
use latency_guard::wire::JobPage;
use serde_json::{json, Value};
use std::time::Duration;

fn target(base_url: &str) -> RequestTarget {
    common::any_target(base_url, None, &[])
}

#[tokio::test]
async fn an_ab_of_a_drafting_server_against_a_plain_one_gives_each_cell_a_verdict_and_a_panel() {
    let (Some(plain), Some(drafting)) = (llama_server(false).await, llama_server(true).await) else { return };
    let dir = tempfile::tempdir().unwrap();
    let (json_out, html_out) = (dir.path().join("ab.json"), dir.path().join("ab.html"));
    let args = |out: &std::path::Path, concurrency: &str| {
        let out = out.to_str().unwrap().to_string();
        let fixed = [
            "spec-lab",
            "ab",
            "--baseline-url",
            &plain.base_url,
            "--candidate-url",
            &drafting.base_url,
            "--model",
            "tiny",
            "--prompt",
            "count to ten",
            "--prompt",
            "say hello",
            "-n",
            "4",
            "--max-tokens",
            "24",
            "--warmup",
            "0",
            "-c",
            concurrency,
            "--out",
            &out,
        ];
        fixed.iter().map(|s| s.to_string()).collect::<Vec<String>>()
    };
    let run = |args: Vec<String>| async move {
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        common::cli(&refs, &[]).await
    };
    let (code, stdout, stderr) = run(args(&json_out, "1,2")).await;
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert!(stderr.contains("baseline: llama.cpp at http://127.0.0.1:"), "{stderr}");
    assert!(stderr.contains("cell 2/2 · 32/32 requests"), "progress reaches the end: {stderr}");
    assert!(stdout.contains("concurrency 1, temperature 0 — ") && stdout.contains("concurrency 2, temperature 0 — "));

    let report: Value = serde_json::from_str(&std::fs::read_to_string(&json_out).unwrap()).unwrap();
    let cells = report["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 2);
    for cell in cells {
        for arm in ["baseline", "candidate"] {
            assert_eq!((cell[arm]["measured"].as_u64(), cell[arm]["failed"].as_u64()), (Some(8), Some(0)), "{cell}");
        }
        let metrics: Vec<&str> =
            cell["deltas"].as_array().unwrap().iter().map(|d| d["metric"].as_str().unwrap()).collect();
        assert_eq!(metrics, ["ttft", "tpot", "total"]);
        assert!(cell["deltas"][1]["ci95"][0].as_f64().unwrap() < cell["deltas"][1]["ci95"][1].as_f64().unwrap());
        // The plain server counted no drafts; the drafting one counted exactly what its replies reported.
        assert_eq!(cell["baseline"]["server"]["spec"]["draftTokens"], 0.0, "{cell}");
        let (spec, replies) = (&cell["candidate"]["server"]["spec"], &cell["candidate"]["replies"]);
        assert_eq!(spec["kind"], "window");
        assert!(spec["draftTokens"].as_f64().unwrap() > 0.0);
        assert_eq!(spec["draftTokens"].as_f64(), replies["draftTokens"].as_f64(), "{cell}");
        assert_eq!(spec["acceptedTokens"].as_f64(), replies["draftAccepted"].as_f64(), "{cell}");
        // Greedy decoding with the target model as its own draft: every drafted token is accepted.
        assert_eq!(spec["acceptanceRate"], 1.0, "{spec}");
        let verdict = cell["verdict"]["summary"].as_str().unwrap();
        assert!(verdict.contains("100.0 % of drafted tokens accepted") && verdict.contains("Welch p"), "{verdict}");
        assert!(cell["verdict"]["caveats"].to_string().contains("Small sample: 8 successful"), "{cell}");
    }
    assert!(report["notes"].to_string().contains("the arm that goes first alternating"), "{}", report["notes"]);

    let (code, stdout, stderr) = run(args(&html_out, "1")).await;
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let html = std::fs::read_to_string(&html_out).unwrap();
    let section = &html[html.find("id=\"spec-lab\"").unwrap()..];
    assert_eq!(section.matches("class=\"phase decode\"><title>").count(), 2, "one decode bar per arm");
    assert!(section.contains("baseline · no drafts") && section.contains("candidate · 100.0 % accepted"), "{section}");
    assert!(!html.contains("<script") && !html.contains("src=\"http"), "self-contained");
}

/// The notes of an A/A test of 300-token prompts against one llama.cpp server, with `extra` options.
async fn notes_of_an_a_a_test(base_url: &str, extra: &[&str]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("ab.json");
    let fixed = ["spec-lab", "ab", "--baseline-url", base_url, "--candidate-url", base_url, "--model", "tiny"];
    let load = ["--input-tokens", "300", "--output-tokens", "2", "-n", "4", "--warmup", "0", "--no-probe"];
    let args = [&fixed[..], &load, extra, &["--out", out.to_str().unwrap()]].concat();
    let (code, stdout, stderr) = common::cli(&args, &[]).await;
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let report: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    report["notes"].to_string()
}

/// Both arms of an A/B test on one llama.cpp server (an A/A test): each round sends the same requests to one arm,
/// then the other, so without marks the arm going second finds the first's prompts in the server's cache and
/// measures a cached prefill — half of each arm's requests, the order alternating. With each arm's own marks
/// (the default) neither does, and the report says so; without them it warns for both arms.
#[tokio::test]
async fn neither_arm_of_a_test_on_one_server_measures_the_other_arms_cache() {
    let Some(server) = llama_server(false).await else { return };
    let marked = notes_of_an_a_a_test(&server.base_url, &[]).await;
    assert!(marked.contains("Prompt marks: each prompt began with a mark of its cell, its arm"), "{marked}");
    assert!(!marked.contains("Warning: "), "{marked}");
    let unmarked = notes_of_an_a_a_test(&server.base_url, &["--no-prompt-heads"]).await;
    assert!(unmarked.contains("Prompt marks: off"), "{unmarked}");
    for arm in ["baseline", "candidate"] {
        assert!(unmarked.contains(&format!("Warning: 2 of 4 {arm} request(s)")), "{unmarked}");
    }
}

#[tokio::test]
async fn stored_connectors_can_be_the_arms_and_bad_options_or_a_dead_arm_say_so_in_the_exit_code() {
    use latency_guard::config::{sqlite_url, Secret};
    use latency_guard::model::ConnectorInput;
    use latency_guard::secrets::SecretBox;
    let (Some(plain), Some(drafting)) = (llama_server(false).await, llama_server(true).await) else { return };
    let dir = tempfile::tempdir().unwrap();
    let url = sqlite_url(&dir.path().join("app.db"));
    let secret_hex = "cd".repeat(32);
    let store = latency_guard::store::Store::connect(&url).await.unwrap();
    let (ws, _) = store.ensure_workspace("local:owner", "w", 1).await.unwrap();
    let sealer = SecretBox::new(&Secret::from_text(&secret_hex).unwrap());
    let mut ids = Vec::new();
    for (name, base_url) in [("spec off", &plain.base_url), ("spec on", &drafting.base_url)] {
        let input = ConnectorInput {
            name: name.into(),
            base_url: base_url.clone(),
            model: "tiny".into(),
            ..Default::default()
        };
        ids.push(
            store.create_connector(ws.id, &input.validate().unwrap(), false, &sealer, 1).await.unwrap().id.to_string(),
        );
    }
    store.close().await;
    let env = [("DATABASE_URL", url.as_str()), ("LATENCY_GUARD_SECRET", secret_hex.as_str())];
    let args = [
        "spec-lab",
        "ab",
        "--baseline-connector",
        &ids[0],
        "--candidate-connector",
        &ids[1],
        "--prompt",
        "hi",
        "-n",
        "3",
        "--max-tokens",
        "8",
        "--json",
    ];
    let (code, stdout, stderr) = common::cli(&args, &env).await;
    assert_eq!(code, 0, "{stderr}");
    let report: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(
        (report["baseline"]["name"].as_str(), report["candidate"]["name"].as_str()),
        (Some("spec off"), Some("spec on"))
    );
    assert_eq!(report["candidate"]["serverKind"], "llama_cpp");

    // Options that cannot work are refused before anything is sent (exit 2), each naming what to fix.
    let unknown = uuid::Uuid::new_v4().to_string();
    let (plain_url, drafting_url) = (plain.base_url.as_str(), drafting.base_url.as_str());
    for (bad, expected) in [
        (
            "--baseline-url {plain} --candidate-url {drafting} --prompt x",
            "--model (or --baseline-model) is required for --baseline-url",
        ),
        (
            "--baseline-url {plain} --candidate-url {drafting} --model tiny --prompt x -c 0",
            "concurrencies: 0 is outside 1 to 256",
        ),
        ("--baseline-url ftp://x --candidate-url {drafting} --model tiny --prompt x", "--baseline-url:"),
        ("--baseline-connector {unknown} --candidate-url {drafting} --model tiny --prompt x", "--baseline-connector"),
    ] {
        let line = bad.replace("{plain}", plain_url).replace("{drafting}", drafting_url).replace("{unknown}", &unknown);
        let args: Vec<&str> = ["spec-lab", "ab"].into_iter().chain(line.split(' ')).collect();
        let (code, _, stderr) = common::cli(&args, &env).await;
        assert_eq!(code, 2, "{line}: {stderr}");
        assert!(stderr.contains(expected), "{expected:?} missing: {stderr}");
    }

    // A candidate that is gone: every request fails, the cell cannot be judged, and the exit code says so.
    let gone = format!(
        "http://127.0.0.1:{}/v1",
        std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
    );
    let args = [
        "spec-lab",
        "ab",
        "--baseline-url",
        &plain.base_url,
        "--candidate-url",
        &gone,
        "--model",
        "tiny",
        "--prompt",
        "hi",
        "-n",
        "2",
        "--max-tokens",
        "4",
        "--json",
    ];
    let (code, stdout, stderr) = common::cli(&args, &[]).await;
    assert_eq!(code, 1, "{stderr}");
    let report: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(report["cells"][0]["verdict"]["kind"], "inconclusive");
    assert_eq!(report["cells"][0]["candidate"]["failed"], 2);
    assert_eq!(report["cells"][0]["candidate"]["validity"]["verdict"], "invalid");
    let caveats = report["cells"][0]["verdict"]["caveats"].to_string();
    assert!(caveats.contains("The candidate arm's figures are invalid: samples, errors."), "{caveats}");
    assert!(stderr.contains("candidate: engine not identified"), "{stderr}");
}

#[tokio::test]
async fn a_server_restarted_during_the_work_is_caught_even_when_it_counts_past_where_it_stood() {
    // The counters alone would miss it: the new server drafts more than the old one had when the work began.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let Some(first) = llama_server_at(port, true).await else { return };
    let client = HttpClient::new().unwrap();
    let base_url = first.base_url.clone();
    let ask = |n: u32| {
        let (client, url, endpoint) = (client.clone(), format!("{base_url}/chat/completions"), target(&base_url));
        async move {
            for i in 0..n {
                let body = json!({"model": "tiny", "messages": [{"role": "user", "content": format!("go {i}")}],
                                  "max_tokens": 16, "temperature": 0});
                let reply = client.for_target(&endpoint).unwrap().post(&url).json(&body).send().await.unwrap();
                assert!(reply.status().is_success());
            }
        }
    };
    ask(2).await;
    let work = async {
        tokio::time::sleep(Duration::from_millis(1_300)).await;
        drop(first);
        let mut tries = 0;
        while scrape(&client, &target(&base_url)).await.is_ok() && tries < 100 {
            tokio::time::sleep(Duration::from_millis(50)).await;
            tries += 1;
        }
        let second = llama_server_at(port, true).await.unwrap();
        // More work after the restart than before it: the last reading stands above the first.
        ask(6).await;
        tokio::time::sleep(Duration::from_millis(1_300)).await;
        second
    };
    let (_second, recorded) = record_during(&client, &target(&base_url), ServerKind::LlamaCpp, work).await;
    let recorded = recorded.unwrap();
    assert!(
        matches!(&recorded.spec, SpecOutcome::Restarted { counter } if counter == PROCESS_START),
        "{:?} after {} readings ({} unanswered)",
        recorded.spec,
        recorded.scrapes,
        recorded.failed_scrapes
    );
    let notes = latency_guard::runs::report::server_notes(&recorded);
    assert!(notes[0].contains("the server restarted during the run (its process start time changed"), "{}", notes[0]);
}

/// A key the connectors carry (llama.cpp without `--api-key` ignores it): no reply may contain it.
const KEY_CANARY: &str = "sk-ab-canary-0123456789abcdef";

/// Creates a connector named `name` for `base_url` (with the canary key) in the session's workspace and probes
/// it; its id.
async fn probed_connector(app: &common::TestApp, cookie: &str, name: &str, base_url: &str) -> String {
    let input = json!({"input": {"name": name, "baseUrl": base_url, "model": "tiny", "apiKey": KEY_CANARY}});
    let (status, text) = app.call("connectors/create", input, Some(cookie)).await;
    assert_eq!(status, 200, "{text}");
    let id = serde_json::from_str::<Value>(&text).unwrap()["id"].as_str().unwrap().to_string();
    assert_eq!(app.call("speclab/probe", json!({"id": id}), Some(cookie)).await.0, 200);
    id
}

/// A test's view once it has ended, as JSON on the wire.
async fn ended(app: &common::TestApp, cookie: &str, id: &str) -> Value {
    serde_json::to_value(app.until_ab_test_ended(cookie, id.parse().unwrap()).await).unwrap()
}

#[tokio::test]
async fn the_api_runs_an_ab_between_probed_connectors_and_stops_one_on_request() {
    let (Some(plain), Some(drafting)) = (llama_server(false).await, llama_server(true).await) else { return };
    let app = common::spawn_app().await;
    let (_, cookie) = app.session_for(latency_guard::store::LOCAL_OWNER).await;
    let (_, stranger) = app.session_for("someone-else").await;
    let off = probed_connector(&app, &cookie, "spec off", &plain.base_url).await;
    let on = probed_connector(&app, &cookie, "spec on", &drafting.base_url).await;
    let start = |plan: Value| json!({"input": {"baselineConnectorId": off, "candidateConnectorId": on, "plan": plan}});

    let (status, text) = app
        .call(
            "speclab/ab/start",
            start(json!({"prompts": ["count", "hello"], "iterations": 3, "maxTokens": 16, "concurrencies": [1, 2]})),
            Some(&cookie),
        )
        .await;
    assert_eq!(status, 200, "{text}");
    let started: Value = serde_json::from_str(&text).unwrap();
    assert_eq!((started["status"].as_str(), started["totalRequests"].as_u64()), (Some("running"), Some(28)));
    let id = started["id"].as_str().unwrap().to_string();
    assert_eq!(app.call("speclab/ab/get", json!({"id": id}), Some(&stranger)).await.0, 404, "another workspace's");
    let view = ended(&app, &cookie, &id).await;
    assert_eq!(
        (view["summary"]["status"].as_str(), view["summary"]["doneRequests"].as_u64()),
        (Some("completed"), Some(28))
    );
    assert!(!view.to_string().contains(KEY_CANARY), "the key went with the requests, not into the report");
    let report = &view["report"];
    assert_eq!(
        (report["baseline"]["name"].as_str(), report["candidate"]["serverKind"].as_str()),
        (Some("spec off"), Some("llama_cpp"))
    );
    assert_eq!(report["cells"].as_array().unwrap().len(), 2);
    let cell = &report["cells"][1];
    assert_eq!(cell["plan"]["concurrency"], 2);
    assert_eq!(cell["candidate"]["server"]["spec"]["acceptanceRate"], 1.0, "{cell}");
    assert!(cell["verdict"]["summary"].as_str().unwrap().contains("of drafted tokens accepted"));
    // The page shows the report rendered by the server: each cell's section and the notes.
    let (status, text) = app.call("speclab/ab/page", json!({"id": id}), Some(&cookie)).await;
    assert_eq!(status, 200, "{text}");
    let page: JobPage<AbTestSummary> = serde_json::from_str(&text).unwrap();
    let shown = page.report.as_ref().unwrap().as_str();
    assert!(shown.contains("of drafted tokens accepted"), "{shown}");
    assert!(page.notes.as_ref().unwrap().as_str().contains(r#"id="ab-notes""#), "{page:?}");
    assert!(page.header.as_str().contains("spec off (baseline) vs spec on (candidate)"), "{page:?}");
    assert_eq!(page.summary.done_requests, 28);
    let listed: Value = serde_json::from_str(&app.call("speclab/ab/list", json!({}), Some(&cookie)).await.1).unwrap();
    assert_eq!(listed[0]["id"], id.as_str());
    assert_eq!(app.call("speclab/ab/cancel", json!({"id": id}), Some(&cookie)).await.1, "false", "it had ended");

    // A long test stopped on request keeps what it measured and says it was cut short.
    let long = start(json!({"prompts": ["count"], "iterations": 2000, "maxTokens": 16, "warmup": 0}));
    let id = serde_json::from_str::<Value>(&app.call("speclab/ab/start", long, Some(&cookie)).await.1).unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    let test_id = id.parse().unwrap();
    common::client::until("the long test to measure something", common::client::JOB_LIMIT, || async {
        (app.ab_test(&cookie, test_id).await.summary.done_requests > 0).then_some(())
    })
    .await;
    assert_eq!(app.call("speclab/ab/cancel", json!({"id": id}), Some(&cookie)).await.1, "true");
    let view = ended(&app, &cookie, &id).await;
    assert_eq!(view["summary"]["status"], "cancelled");
    let measured = view["report"]["cells"][0]["baseline"]["measured"].as_u64().unwrap();
    assert!(measured > 0 && measured < 2000, "{measured}");
    assert!(view["report"]["notes"]
        .to_string()
        .contains("The test was stopped early: 1 of 1 cell(s) ran, the last of them cut short"));

    // What cannot be tested is refused with the field to fix.
    let (status, text) = app
        .call("speclab/ab/start", json!({"input": {"baselineConnectorId": off, "candidateConnectorId": off, "plan": {"prompts": ["x"], "iterations": 1}}}), Some(&cookie))
        .await;
    assert_eq!(status, 400, "{text}");
    assert!(text.contains("candidateConnectorId"), "{text}");
    let (status, text) = app
        .call("speclab/ab/start", start(json!({"prompts": ["x"], "iterations": 1, "temperatures": [3]})), Some(&cookie))
        .await;
    assert_eq!(status, 400);
    assert!(text.contains("temperatures") && text.contains("outside 0 to 2"), "{text}");
    let (status, _) =
        app.call("speclab/ab/start", start(json!({"prompts": ["x"], "iterations": 1})), Some(&stranger)).await;
    assert_eq!(status, 404, "another workspace's connectors");
}

#[tokio::test]
async fn a_server_gone_before_the_last_reading_gives_no_window_rather_than_a_short_one() {
    let Some(server) = llama_server(true).await else { return };
    let client = HttpClient::new().unwrap();
    let gone = target(&server.base_url);
    let work = async {
        drop(server);
        let mut tries = 0;
        while scrape(&client, &gone).await.is_ok() && tries < 100 {
            tokio::time::sleep(Duration::from_millis(50)).await;
            tries += 1;
        }
    };
    let (_, recorded) = record_during(&client, &gone, ServerKind::LlamaCpp, work).await;
    let recorded = recorded.unwrap();
    assert!(matches!(recorded.spec, SpecOutcome::Unfinished { .. }), "{:?}", recorded.spec);
    assert_eq!(recorded.scrapes, 1, "only the reading before the work answered");
    assert!(recorded.failed_scrapes >= 2, "the last reading was tried twice: {recorded:?}");
    let notes = latency_guard::runs::report::server_notes(&recorded);
    assert!(notes[0].contains("could not be read after the run"), "{}", notes[0]);
}

/// A `/metrics` that misbehaves, served on loopback: an endless body of valid lines, or one line every half second
/// forever. Its base URL.
async fn hostile_metrics(trickle: bool) -> String {
    use axum::body::Body;
    // The endless body comes 512 lines a chunk: one line a chunk took over 3 s to reach the 4 MiB limit in a debug
    // build on a busy 2-core machine, and the scrape then gave up on time instead of on size.
    let per_chunk = if trickle { 1 } else { 512 };
    let lines = move || {
        futures::stream::unfold(0_u64, move |n| async move {
            if trickle {
                tokio::time::sleep(Duration::from_millis(500)).await;
            }
            let chunk: String =
                (n..n + per_chunk).map(|i| format!("vllm:num_requests_running{{engine=\"{i}\"}} 1\n")).collect();
            Some((Ok::<_, std::io::Error>(bytes::Bytes::from(chunk)), n + per_chunk))
        })
    };
    let app =
        axum::Router::new().route("/metrics", axum::routing::get(move || async move { Body::from_stream(lines()) }));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}/v1", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    base
}

#[tokio::test]
async fn an_endless_or_never_finishing_metrics_body_is_cut_off_with_a_reason() {
    let client = HttpClient::new().unwrap();
    let endless = target(&hostile_metrics(false).await);
    let started = std::time::Instant::now();
    let why = scrape(&client, &endless).await.unwrap_err();
    assert_eq!(why, ScrapeError::Fetch(FetchFailure::TooLarge(4096)));
    assert_eq!(why.to_string(), "the answer is larger than 4096 KiB");
    let trickling = target(&hostile_metrics(true).await);
    let why = scrape(&client, &trickling).await.unwrap_err();
    assert_eq!(why, ScrapeError::Fetch(FetchFailure::TimedOut(3)));
    assert_eq!(why.to_string(), "no answer within 3 s");
    assert!(started.elapsed() < Duration::from_secs(10), "both gave up in bounded time: {:?}", started.elapsed());
    // The probe says the same of the path, and a run's recorder records nothing rather than waiting.
    let report = latency_guard::probe::probe(&client, &trickling).await;
    let metrics = report.paths.iter().find(|p| p.path == "/metrics").unwrap();
    assert!(!metrics.usable && metrics.outcome.contains("no answer within 3 s"), "{metrics:?}");
    let (_, recorded) = record_during(&client, &endless, ServerKind::Vllm, async {}).await;
    assert_eq!(recorded, None);
}
