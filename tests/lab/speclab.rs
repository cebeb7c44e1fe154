//! Spec Lab against real llama.cpp servers (the xllamacpp wheel, a tiny local model): the probe tells a server
//! that drafts with a draft model from one that does not, and a window between two scrapes of `/metrics` holds
//! exactly the drafted and accepted tokens the server reported in its own responses (`timings.draft_n`,
//! `timings.draft_n_accepted`).
#![cfg(feature = "ssr")]
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a failing test should panic loudly")]

use crate::common;

use crate::common::follow_events;
use crate::common::llama::llama_server;
use latency_guard::engine::{HttpClient, RequestTarget};
use latency_guard::model::{ServerKind, SpecCounters};
use latency_guard::probe::{probe, record_during, scrape, spec_evidence, SpecEvidence};
use serde_json::{json, Value};

fn target(base_url: &str) -> RequestTarget {
    common::any_target(base_url, None, &[])
}

async fn counters(client: &HttpClient, target: &RequestTarget) -> SpecCounters {
    let metrics = scrape(client, target).await.unwrap();
    match spec_evidence(ServerKind::LlamaCpp, &metrics) {
        SpecEvidence::Counters(counters) => counters,
        other => panic!("llama.cpp's spec counters: {other:?}"),
    }
}

#[tokio::test]
async fn the_probe_tells_a_drafting_server_from_a_plain_one_and_windows_equal_the_servers_own_sums() {
    let (Some(plain), Some(drafting)) = (llama_server(false).await, llama_server(true).await) else { return };
    let client = HttpClient::new().unwrap();

    let report = probe(&client, &target(&plain.base_url)).await;
    assert_eq!((report.kind, report.has_metrics), (Some(ServerKind::LlamaCpp), true), "{report:?}");
    assert_eq!((report.speculation.configured, report.speculation.active), (Some(false), Some(false)));
    assert!(report.root.ends_with(&plain.base_url.trim_end_matches("/v1")[7..]) && !report.root.ends_with("/v1"));
    let usable: Vec<&str> = report.paths.iter().filter(|p| p.usable).map(|p| p.path.as_str()).collect();
    assert_eq!(usable, ["/metrics", "/props", "/slots", "/tokenize"], "{:?}", report.paths);
    let tokenize = report.paths.iter().find(|p| p.path == "/tokenize").unwrap();
    assert_eq!(tokenize.outcome, "200, llama.cpp's /tokenize (with pieces)");

    let drafting_target = target(&drafting.base_url);
    let report = probe(&client, &drafting_target).await;
    assert_eq!(report.speculation.configured, Some(true), "{report:?}");
    assert_eq!(report.speculation.method.as_deref(), Some("draft model"));

    // A window over five greedy requests: the counters move by exactly what the responses said.
    let before = counters(&client, &drafting_target).await;
    let (mut drafted, mut accepted) = (0.0, 0.0);
    for i in 0..5 {
        let body = json!({"model": "tiny", "messages": [{"role": "user", "content": format!("count {i}")}],
                          "max_tokens": 24, "temperature": 0});
        let url = format!("{}/chat/completions", drafting.base_url);
        let reply = common::post_json(client.for_target(&drafting_target).unwrap(), &url, &body).await;
        drafted += reply["timings"]["draft_n"].as_f64().unwrap_or(0.0);
        accepted += reply["timings"]["draft_n_accepted"].as_f64().unwrap_or(0.0);
    }
    let window = before.window(&counters(&client, &drafting_target).await).unwrap();
    assert!(drafted > 0.0, "the server drafted");
    assert_eq!((window.draft_tokens, window.accepted_tokens), (drafted, accepted));
    let rate = window.acceptance_rate.unwrap();
    assert!((rate - accepted / drafted).abs() < 1e-12);
    let steps = window.drafts.unwrap();
    assert!(steps > 0.0 && (window.mean_acceptance_length.unwrap() - (1.0 + accepted / steps)).abs() < 1e-12);

    let report = probe(&client, &drafting_target).await;
    assert_eq!(report.speculation.active, Some(true));
    assert!(report.speculation.since_start.unwrap().draft_tokens >= drafted);
}

#[tokio::test]
async fn the_command_line_probe_prints_the_report_and_says_what_is_wrong_with_its_options() {
    let Some(drafting) = llama_server(true).await else { return };
    let (code, stdout, stderr) = common::cli(&["spec-lab", "probe", "--base-url", &drafting.base_url], &[]).await;
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("probing http://127.0.0.1:"), "{stderr}");
    for line in
        ["engine       llama.cpp", "/slots", "speculative decoding: configured yes, active no, method draft model"]
    {
        assert!(stdout.contains(line), "{line:?} missing in:\n{stdout}");
    }
    let (code, stdout, _) = common::cli(&["spec-lab", "probe", "--base-url", &drafting.base_url, "--json"], &[]).await;
    assert_eq!(code, 0);
    let report: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!((report["kind"].as_str(), report["hasMetrics"].as_bool()), (Some("llama_cpp"), Some(true)));
    assert_eq!(report["speculation"]["configured"], true);

    let (code, _, stderr) = common::cli(&["spec-lab", "probe", "--base-url", "ftp://nowhere"], &[]).await;
    assert_eq!(code, 2);
    assert!(stderr.contains("--base-url"), "{stderr}");
    let (code, _, stderr) =
        common::cli(&["spec-lab", "probe", "--base-url", &drafting.base_url, "--api-key-env", "LG_NO_SUCH_VAR"], &[])
            .await;
    assert_eq!(code, 2);
    assert!(stderr.contains("--api-key-env: environment variable LG_NO_SUCH_VAR is not set"), "{stderr}");
}

#[tokio::test]
async fn the_api_probes_a_stored_connectors_server_with_its_key_and_never_returns_it() {
    let Some(drafting) = llama_server(true).await else { return };
    let app = common::spawn_app().await;
    let (_, cookie) = app.session_for(latency_guard::store::LOCAL_OWNER).await;
    let (_, stranger) = app.session_for("someone-else").await;
    let key = "sk-probe-canary-4242424242";
    let input = json!({"input": {"name": "llama", "baseUrl": drafting.base_url, "model": "tiny", "apiKey": key}});
    let (status, text) = app.call("connectors/create", input, Some(&cookie)).await;
    assert_eq!(status, 200, "{text}");
    let id = serde_json::from_str::<Value>(&text).unwrap()["id"].as_str().unwrap().to_string();

    let (status, text) = app.call("speclab/probe", json!({"id": id}), Some(&cookie)).await;
    assert_eq!(status, 200, "{text}");
    let report: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        (report["kind"].as_str(), report["speculation"]["configured"].as_bool()),
        (Some("llama_cpp"), Some(true))
    );
    assert!(!text.contains(key), "the key went with the probe, not into its report");
    // The list marks the connector with the engine found; a new base URL (another server) clears the mark.
    let listed = |text: String| serde_json::from_str::<Value>(&text).unwrap()[0].clone();
    let connector = listed(app.call("connectors/list", json!({}), Some(&cookie)).await.1);
    assert_eq!((connector["serverKind"].as_str(), connector["probedAtMs"].is_i64()), (Some("llama_cpp"), true));
    let renamed = json!({"id": id, "input": {"name": "llama 2", "baseUrl": drafting.base_url, "model": "tiny"}});
    assert_eq!(app.call("connectors/update", renamed, Some(&cookie)).await.0, 200);
    let connector = listed(app.call("connectors/list", json!({}), Some(&cookie)).await.1);
    assert_eq!(connector["serverKind"], "llama_cpp", "the same server keeps its mark");
    let moved = json!({"id": id, "input": {"name": "llama 2", "baseUrl": "http://127.0.0.1:9/v1", "model": "tiny",
                                          "apiKey": "sk-entered-again"}});
    assert_eq!(app.call("connectors/update", moved, Some(&cookie)).await.0, 200);
    let connector = listed(app.call("connectors/list", json!({}), Some(&cookie)).await.1);
    assert!(common::null_at(&connector, "/serverKind") && common::null_at(&connector, "/probedAtMs"), "{connector}");

    assert_eq!(app.call("speclab/probe", json!({"id": id}), Some(&stranger)).await.0, 404, "another workspace's");
    assert_eq!(app.call("speclab/probe", json!({"id": id}), None).await.0, 401);
    assert_eq!(app.call("speclab/probe", json!({"id": "not-a-uuid"}), Some(&cookie)).await.0, 400);
}

/// The report snapshot of `run`.
async fn snapshot_of(app: &common::TestApp, cookie: &str, run: &str) -> Value {
    let (status, text) = app.call("runs/report", json!({"id": run}), Some(cookie)).await;
    assert_eq!(status, 200, "{text}");
    serde_json::from_str::<Value>(&text).unwrap()["snapshot"].clone()
}

#[tokio::test]
async fn a_run_against_a_probed_server_records_its_metrics_and_the_report_says_where_figures_came_from() {
    let Some(drafting) = llama_server(true).await else { return };
    let app = common::spawn_app().await;
    let (_, cookie) = app.session_for(latency_guard::store::LOCAL_OWNER).await;
    let input = json!({"input": {"name": "llama", "baseUrl": drafting.base_url, "model": "tiny"}});
    let id = serde_json::from_str::<Value>(&app.call("connectors/create", input, Some(&cookie)).await.1).unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    // Unprobed, a run records nothing of the server: the report keeps its shape and says so.
    let plan = |n: u32| {
        json!({"input": {"connectorId": id, "agent": {"name": "bot", "tokenBudget": 24}, "prompts": ["count", "say"],
                          "iterations": n, "temperature": 0, "mode": {"kind": "closed", "concurrency": 1}}})
    };
    let run = serde_json::from_str::<Value>(&app.call("runs/start", plan(1), Some(&cookie)).await.1).unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    follow_events(&app, &cookie, &run, usize::MAX).await;
    let unprobed = snapshot_of(&app, &cookie, &run).await;
    assert!(unprobed.get("server").is_none(), "{unprobed}");

    assert_eq!(app.call("speclab/probe", json!({"id": id}), Some(&cookie)).await.0, 200);
    let client = HttpClient::new().unwrap();
    let before = counters(&client, &target(&drafting.base_url)).await;
    let run = serde_json::from_str::<Value>(&app.call("runs/start", plan(3), Some(&cookie)).await.1).unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    follow_events(&app, &cookie, &run, usize::MAX).await;
    let window = before.window(&counters(&client, &target(&drafting.base_url)).await).unwrap();
    let snapshot = snapshot_of(&app, &cookie, &run).await;
    common::assert_report_schema(&snapshot);
    let server = &snapshot["server"];
    assert_eq!((server["kind"].as_str(), server["spec"]["kind"].as_str()), (Some("llama_cpp"), Some("window")));
    assert!(server["scrapes"].as_u64().unwrap() >= 2, "{server}");
    assert!(window.draft_tokens > 0.0);
    assert_eq!(
        (server["spec"]["draftTokens"].as_f64(), server["spec"]["acceptedTokens"].as_f64()),
        (Some(window.draft_tokens), Some(window.accepted_tokens)),
        "the run's window is the server's own count over the run"
    );
    // Every streamed reply carried llama.cpp's own timings; their sums are the counters' window exactly.
    let results = snapshot["results"].as_array().unwrap();
    let sum = |key: &str| results.iter().map(|r| r["engineTimings"][key].as_f64().unwrap()).sum::<f64>();
    assert!(results.iter().all(|r| r["engineTimings"]["promptMs"].as_f64().is_some()), "{results:?}");
    assert_eq!((sum("draftTokens"), sum("draftAccepted")), (window.draft_tokens, window.accepted_tokens));
    let honesty = snapshot["honesty"].to_string();
    assert!(honesty.contains("from the server's own counters") && honesty.contains("other traffic"), "{honesty}");
    assert!(honesty.contains("moved by exactly what the run's 6 replies reported"), "{honesty}");
    assert!(honesty.contains("Prefill (the server's prompt_ms) p50"), "{honesty}");
    assert!(!honesty.contains("this run did not record the server's own metrics"), "{honesty}");
    // The run page's view carries the server section: the same notes and the load over the run.
    let (status, text) = app.call("runs/view", json!({"id": run}), Some(&cookie)).await;
    assert_eq!(status, 200, "{text}");
    let section = serde_json::from_str::<Value>(&text).unwrap()["view"]["server"].clone();
    assert!(section["notes"][0].as_str().unwrap().contains("tokens drafted"), "{section}");
    assert!(section["loadSvg"].as_str().unwrap().contains("load-line running"), "{section}");
    // The HTML export, made from what the export buttons fetch, holds the same section.
    let (status, text) = app.call("runs/export", json!({"id": run}), Some(&cookie)).await;
    assert_eq!(status, 200, "{text}");
    let compact: latency_guard::runs::report::CompactSnapshot = serde_json::from_str(&text).unwrap();
    let html = latency_guard::runs::report::export(
        &compact.into_files().unwrap(),
        latency_guard::runs::report::ExportFormat::Html,
    );
    let section = &html[html.find("id=\"server\"").unwrap()..];
    let section = &section[..section.find("</section>").unwrap()];
    assert!(section.contains("tokens drafted") && section.contains("load-line running"), "{section}");
}

#[tokio::test]
async fn the_recorder_reads_the_server_once_a_second_while_the_work_runs() {
    let Some(plain) = llama_server(false).await else { return };
    let client = HttpClient::new().unwrap();
    let work = async {
        let began = std::time::Instant::now();
        tokio::time::sleep(std::time::Duration::from_millis(2_500)).await;
        (began, std::time::Instant::now())
    };
    let started = std::time::Instant::now();
    let ((began, ended), recorded) = record_during(&client, &target(&plain.base_url), ServerKind::LlamaCpp, work).await;
    // The scraping did not hold the work up: only the first reading comes before it, and after it at most the
    // reading in flight and the last one (each within a scrape's time limit).
    let timeout = latency_guard::probe::PROBE_TIMEOUT;
    assert!(began - started < timeout, "the work waited {:?} to start", began - started);
    assert!(ended.elapsed() < 2 * timeout, "the recorder returned {:?} after the work", ended.elapsed());
    let recorded = recorded.unwrap();
    // First, the ticks at 1 s and 2 s (the second may fall after the work on a loaded machine), last.
    assert!((3..=4).contains(&recorded.scrapes) && recorded.failed_scrapes == 0, "{recorded:?}");
    let at: Vec<u64> = recorded.samples.iter().map(|s| s.at_ms).collect();
    assert_eq!(at.len() as u32, recorded.scrapes, "every reading is kept in a short run");
    assert!(at.windows(2).all(|w| w[0] < w[1]) && at.last() >= Some(&2_500), "{at:?}");
    assert!(recorded.samples.iter().all(|s| s.running == Some(0.0)), "{:?}", recorded.samples);
    assert!(matches!(recorded.spec, latency_guard::model::SpecOutcome::Window(ref w) if w.draft_tokens == 0.0));

    // A server that is gone records nothing, and the work still runs.
    let gone = target(&plain.base_url);
    drop(plain);
    let mut tries = 0;
    while scrape(&client, &gone).await.is_ok() && tries < 50 {
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        tries += 1;
    }
    let (output, recorded) = record_during(&client, &gone, ServerKind::LlamaCpp, async { 7 }).await;
    assert_eq!((output, recorded), (7, None));
}

#[tokio::test]
async fn a_server_without_metrics_or_engine_endpoints_is_told_plainly() {
    // The simulator answers chat completions only, as a hosted API does.
    let config =
        latency_guard::sim::SimConfig { engine_endpoints: false, ..latency_guard::sim::SimConfig::fixed_ms(1, 1, 4) };
    let sim = latency_guard::sim::spawn_local(config).await.unwrap();
    let report = probe(&HttpClient::new().unwrap(), &target(&sim.base_url())).await;
    assert_eq!((report.kind, report.has_metrics, report.speculation.configured), (None, false, None));
    let (tokenize, others): (Vec<_>, Vec<_>) = report.paths.iter().partition(|p| p.path == "/tokenize");
    assert!(others.iter().all(|p| !p.usable && p.outcome == "404"), "{:?}", report.paths);
    assert!(tokenize[0].usable, "the simulator has a tokenizer of its own: {:?}", tokenize[0]);
    assert!(report.notes.iter().any(|n| n.contains("hosted API")), "{:?}", report.notes);
    sim.stop();
}
