//! Benchmark runs through the HTTP API against the simulator: start, follow live over SSE, report, cancel,
//! failures recorded as iterations, interruption on restart.
#![cfg(feature = "ssr")]
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a failing test should panic loudly")]

use crate::common;

use crate::common::{spawn_app, TestApp};
use latency_guard::jobs::JobOwner;
use latency_guard::sim::{self, SimConfig};
use serde_json::{json, Value};
use std::time::Duration;

async fn connector(app: &TestApp, cookie: &str, base_url: &str, key: Option<&str>) -> String {
    let input = json!({"input": {"name": "sim", "baseUrl": base_url, "model": "sim-model", "apiKey": key,
                                 "inputPricePerMtok": 1.0, "outputPricePerMtok": 2.0}});
    let (status, text) = app.call("connectors/create", input, Some(cookie)).await;
    assert_eq!(status, 200, "{text}");
    serde_json::from_str::<Value>(&text).unwrap()["id"].as_str().unwrap().to_string()
}

/// An app, its owner's session, and a connector to a simulator the test keeps.
struct Rig {
    app: TestApp,
    cookie: String,
    connector: String,
    sim: sim::SimHandle,
}

/// A [`Rig`] whose simulator answers as `config` says.
async fn rig(config: SimConfig) -> Rig {
    rig_with_key(config, None).await
}

/// A [`Rig`] whose connector sends `key`.
async fn rig_with_key(config: SimConfig, key: Option<&str>) -> Rig {
    let app = spawn_app().await;
    let sim = sim::spawn_local(config).await.unwrap();
    let (_, cookie) = app.session_for("owner").await;
    let connector = connector(&app, &cookie, &sim.base_url(), key).await;
    Rig { app, cookie, connector, sim }
}

fn plan(connector_id: &str, iterations: u32, mode: Value) -> Value {
    json!({"input": {
        "connectorId": connector_id,
        "agent": {"name": "support-bot", "systemPrompt": "Be brief.", "tokenBudget": 64},
        "prompts": ["What is latency?", "Say hi"],
        "iterations": iterations,
        "warmup": 1,
        "mode": mode,
    }})
}

async fn start(app: &TestApp, cookie: &str, body: Value) -> String {
    let (status, text) = app.call("runs/start", body, Some(cookie)).await;
    assert_eq!(status, 200, "{text}");
    serde_json::from_str::<Value>(&text).unwrap()["id"].as_str().unwrap().to_string()
}

/// Starts a run of `body` and follows it to its end; its id.
async fn finished(app: &TestApp, cookie: &str, body: Value) -> String {
    let run = start(app, cookie, body).await;
    follow(app, cookie, &run).await;
    run
}

/// Starts a run of `body`, which must be refused with a 400; the reply.
async fn refused(app: &TestApp, cookie: &str, body: Value) -> String {
    let (status, reply) = app.call("runs/start", body, Some(cookie)).await;
    assert_eq!(status, 400, "{reply}");
    reply
}

/// Reads `/api/runs/{id}/events` to its `end`, returning (event name, JSON data) pairs.
async fn follow(app: &TestApp, cookie: &str, run: &str) -> Vec<(String, Value)> {
    common::follow_events(app, cookie, run, usize::MAX).await
}

/// `POST /api/<path>` with `{"id": run}`, which must answer 200; the body as sent.
async fn read_run_text(app: &TestApp, cookie: &str, path: &str, run: &str) -> String {
    let (status, text) = app.call(path, json!({"id": run}), Some(cookie)).await;
    assert_eq!(status, 200, "{text}");
    text
}

/// The same, read as JSON.
async fn read_run(app: &TestApp, cookie: &str, path: &str, run: &str) -> Value {
    serde_json::from_str(&read_run_text(app, cookie, path, run).await).unwrap()
}

async fn report(app: &TestApp, cookie: &str, run: &str) -> Value {
    read_run(app, cookie, "runs/report", run).await
}

/// Waits until a running run has stored at least `n` iterations; returns how many it had then.
async fn stored_at_least(app: &TestApp, cookie: &str, run: &str, n: usize) -> usize {
    crate::common::client::until(&format!("{n} iterations stored"), Duration::from_secs(30), || async {
        let stored = report(app, cookie, run).await["snapshot"]["results"].as_array().unwrap().len();
        (stored >= n).then_some(stored)
    })
    .await
}

#[tokio::test]
async fn a_closed_loop_run_streams_progress_and_ends_in_a_report_with_honest_notes() {
    let Rig { app, cookie, connector, sim } = rig(SimConfig::fixed_ms(20, 1, 12)).await;
    let run = start(&app, &cookie, plan(&connector, 5, json!({"kind": "closed", "concurrency": 2}))).await;

    let events = follow(&app, &cookie, &run).await;
    let (last_name, last) = events.last().unwrap();
    assert_eq!(last_name, "end");
    assert_eq!(last["progress"]["status"], "completed");
    assert_eq!(last["progress"]["done"], 11, "1 warm-up + 2 prompts × 5 iterations");
    assert_eq!(last["progress"]["total"], 11);
    let points: usize = events.iter().map(|(_, e)| e["points"].as_array().unwrap().len()).sum();
    assert_eq!(points, 11, "every point is sent exactly once");

    let report = report(&app, &cookie, &run).await;
    let snapshot = &report["snapshot"];
    common::assert_report_schema(snapshot);
    assert_eq!(snapshot["results"].as_array().unwrap().len(), 11);
    assert_eq!(snapshot["connector"], json!({"baseUrl": sim.base_url(), "model": "sim-model"}));
    assert_eq!(snapshot["agent"]["systemPrompt"], "Be brief.");
    assert_eq!(snapshot["agent"]["tokenBudget"], 64);
    let ttft = &snapshot["stats"]["ttft"];
    assert!(ttft["p50"].as_f64().unwrap() >= 20.0, "{ttft}");
    assert!(ttft["p99"].as_f64().unwrap() >= ttft["p50"].as_f64().unwrap());
    assert!(snapshot["stats"]["tokPerSec"].as_f64().unwrap() > 0.0);
    let first = &snapshot["results"][0];
    assert_eq!(first["warmup"], true);
    let measured = &snapshot["results"][1];
    for field in ["prompt", "iteration", "ttftMs", "totalMs", "tokensIn", "tokensOut", "costUsd", "error"] {
        assert!(measured.get(field).is_some(), "results carry the documented field {field}");
    }
    assert!(common::null_at(measured, "/error"));
    assert_eq!(measured["iteration"], 0);
    assert_eq!(measured["tokensOut"], 12);
    let expected_cost = (measured["tokensIn"].as_f64().unwrap() * 1.0 + 12.0 * 2.0) / 1e6;
    assert!((measured["costUsd"].as_f64().unwrap() - expected_cost).abs() < 1e-12);
    let honesty =
        snapshot["honesty"].as_array().unwrap().iter().map(|n| n.as_str().unwrap()).collect::<Vec<_>>().join("\n");
    for needle in [
        "10 measured iterations",
        "linear interpolation",
        "TTFT = time from sending",
        "reported by the endpoint",
        "closed loop, 2",
        "Speculative decoding",
        "Small sample",
    ] {
        assert!(honesty.contains(needle), "honesty notes lack {needle:?}:\n{honesty}");
    }
    assert_eq!(report["summary"]["errorRate"], 0.0);
    assert_eq!(report["summary"]["measured"], 10);

    // The page's view carries the same figures without the iterations; the table pages come one at a time.
    let (status, text) = app.call("runs/view", json!({"id": run}), Some(&cookie)).await;
    assert_eq!(status, 200, "{text}");
    let view: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(view["view"]["stats"], snapshot["stats"]);
    assert_eq!(view["view"]["summary"], report["summary"]);
    assert_eq!(view["view"]["honesty"], snapshot["honesty"]);
    assert_eq!((view["view"]["iterations"].as_u64(), view["view"]["failures"].as_u64()), (Some(11), Some(0)));
    assert_eq!(view["view"]["firstPage"]["rows"], snapshot["results"], "11 rows fit the first page");
    assert!(view["view"].get("results").is_none());
    // The run page: what never changes once shown comes as the server's HTML, in the reply and once in a served
    // page (the page's hydration data leaves it empty: the browser keeps the HTML already there).
    let (status, text) = app.call("runs/page", json!({"id": run}), Some(&cookie)).await;
    assert_eq!(status, 200, "{text}");
    let page: Value = serde_json::from_str(&text).unwrap();
    assert_eq!((page["status"].as_str(), page["progress"]["done"].as_u64()), (Some("completed"), Some(11)));
    // The table's first page comes drawn, every row with its total in milliseconds (the unit is the heading's).
    let rows = page["report"]["firstPage"]["rows"].as_str().unwrap();
    assert_eq!(rows.matches("<tr").count(), 11, "{rows}");
    for record in snapshot["results"].as_array().unwrap() {
        let total = latency_guard::report::ms_number(record["totalMs"].as_f64().unwrap());
        assert!(rows.contains(&format!(r#"<td class="num">{total}</td>"#)), "{total} in {rows}");
    }
    let body = page["report"]["body"].as_str().unwrap();
    let note = snapshot["honesty"][0].as_str().unwrap();
    assert!(body.contains(r#"id="time-slices""#), "{body}");
    assert!(body.contains(note.split('\'').next().unwrap_or(note)), "the honesty notes: {body}");
    // The summary first: the header carries the title, the verdict and then the figures; the notes come last.
    let header = page["report"]["header"].as_str().unwrap();
    assert!(header.contains(r#"id="run-title""#) && header.find(r#"id="verdict""#) < header.find(r#"id="stats""#));
    assert!(body.ends_with("</details>") && body.contains(r#"<details id="honesty" class="honesty">"#), "{body}");
    assert!(page["report"]["scatter"].as_str().unwrap().starts_with("<svg"));
    let served = common::client()
        .get(format!("{}/runs/{run}", app.base))
        .header("cookie", &cookie)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(served.contains(r#"id="stats""#), "the page shows the figures");
    // However the data were escaped, a second copy would repeat each card's explanation.
    let cards = header.matches("stat-how").count();
    assert!(cards >= 5, "{header}");
    assert_eq!(served.matches("stat-how").count(), cards, "the hydration data does not carry the figures' HTML again");
    assert_eq!(served.matches(r#"class="error-cell""#).count(), 11, "nor the table's rows");
    let query = json!({"id": run, "query": {"sort": "ttft", "descending": true, "pageSize": 4, "page": 2}});
    let (status, text) = app.call("runs/iterations", query, Some(&cookie)).await;
    assert_eq!(status, 200, "{text}");
    let page: Value = serde_json::from_str(&text).unwrap();
    let mut ttfts: Vec<f64> =
        snapshot["results"].as_array().unwrap().iter().filter_map(|r| r["ttftMs"].as_f64()).collect();
    ttfts.sort_by(|a, b| b.total_cmp(a));
    let shown: Vec<f64> = page["rows"].as_array().unwrap().iter().map(|r| r["ttftMs"].as_f64().unwrap()).collect();
    assert_eq!(
        (shown, page["pages"].as_u64()),
        (ttfts[8..].to_vec(), Some(3)),
        "the third page of four, slowest first"
    );
    // The page's own form of that page: the same rows, drawn.
    let query = json!({"id": run, "query": {"sort": "ttft", "descending": true, "pageSize": 4, "page": 2}});
    let table: Value = app.json(&cookie, "runs/table", query).await;
    assert_eq!((table["pages"].as_u64(), table["rows"].as_str().unwrap().matches("<tr").count()), (Some(3), 3));
    let (status, text) =
        app.call("runs/iterations", json!({"id": run, "query": {"sort": "fastest"}}), Some(&cookie)).await;
    assert_eq!(status, 400, "{text}");

    let (_, list) = app.call("runs/list", json!({}), Some(&cookie)).await;
    assert_eq!(serde_json::from_str::<Value>(&list).unwrap()[0]["status"], "completed");
    // The runs page's list: the connector by name and the report's headline figures, in words.
    let listed = &app.json(&cookie, "runs/listing", json!({})).await[0];
    let output = report["summary"]["outputTokPerSec"].as_f64().unwrap();
    let ttft = report["summary"]["ttft"]["p95"].as_f64().unwrap();
    assert_eq!(
        (&listed["id"], &listed["connector"], &listed["status"]),
        (&json!(run), &json!("sim"), &json!("completed")),
        "{listed}"
    );
    assert_eq!(listed["outputThroughput"], format!("{output:.1} tok/s"));
    assert_eq!(listed["ttftP95"], latency_guard::report::ms(ttft));
    assert_eq!(listed["errors"], "0.0 % of 10");
    // Replies travel compressed to clients that accept it.
    let compressed = common::client()
        .post(format!("{}/api/runs/view", app.base))
        .header("cookie", &cookie)
        .header("accept-encoding", "gzip")
        .json(&json!({"id": run}))
        .send()
        .await
        .unwrap();
    assert_eq!(compressed.headers().get("content-encoding").map(|v| v.as_bytes()), Some(&b"gzip"[..]));
}

/// How many iterations a scatter SVG draws (each has a TTFT circle; the legend has one more).
fn drawn_points(svg: &str) -> usize {
    svg.matches(r#"class="ttft""#).count().saturating_sub(1)
}

#[tokio::test]
async fn a_running_runs_page_follows_counters_alone_and_its_scatter_is_drawn_by_the_server() {
    // 40 ms a request, one at a time: the run lasts about two seconds.
    let Rig { app, cookie, connector, sim: _sim } = rig(SimConfig::fixed_ms(30, 1, 8)).await;
    let run = start(&app, &cookie, plan(&connector, 25, json!({"kind": "closed", "concurrency": 1}))).await;

    // The page's stream: counters in every event, no points, down to the end.
    let events = common::follow_event_stream(&app, &cookie, &format!("/api/runs/{run}/events?points=false"), 3).await;
    assert!(events.iter().all(|(_, e)| e["points"] == json!([])), "{events:?}");
    assert!(events.iter().all(|(_, e)| e["progress"]["done"].is_u64()), "{events:?}");

    // Mid-run, the scatter is of what is stored so far.
    let (status, text) = app.call("runs/scatter", json!({"id": run}), Some(&cookie)).await;
    assert_eq!(status, 200, "{text}");
    let mid: String = serde_json::from_str(&text).unwrap();
    assert!(mid.starts_with(r#"<svg class="chart scatter""#), "{mid}");
    let drawn_mid = drawn_points(&mid);
    assert!(drawn_mid < 51, "drawn before the end: {drawn_mid}");

    let events = common::follow_event_stream(&app, &cookie, &format!("/api/runs/{run}/events?points=false"), 100).await;
    let (name, last) = events.last().unwrap();
    assert_eq!((name.as_str(), last["progress"]["done"].as_u64()), ("end", Some(51)));
    assert_eq!(last["points"], json!([]), "not even the end carries the points");
    // Once over, it is the report's own scatter, point for point.
    let (_, text) = app.call("runs/scatter", json!({"id": run}), Some(&cookie)).await;
    let end: String = serde_json::from_str(&text).unwrap();
    assert_eq!(drawn_points(&end), 51, "1 warm-up + 2 prompts × 25 iterations");
    let page = read_run(&app, &cookie, "runs/page", &run).await;
    assert_eq!(page["report"]["scatter"].as_str(), Some(end.as_str()));

    // A mistyped points option is refused plainly; another workspace gets nothing.
    let (status, _, text) = app.get(&format!("/api/runs/{run}/events?points=some"), Some(&cookie)).await;
    assert_eq!(status, 400);
    assert!(text.contains("points"), "{text}");
    let (_, other) = app.session_for("other").await;
    let (status, _) = app.call("runs/scatter", json!({"id": run}), Some(&other)).await;
    assert_eq!(status, 404);
}

#[tokio::test]
async fn failed_requests_are_iterations_with_an_error_class_and_the_run_completes() {
    let sim = SimConfig::fixed_ms(1, 1, 4).with_key(Some("sk-right"));
    let Rig { app, cookie, connector, sim: _sim } = rig_with_key(sim, Some("sk-wrong")).await;
    let run = finished(&app, &cookie, plan(&connector, 2, json!({"kind": "closed", "concurrency": 1}))).await;
    let report = report(&app, &cookie, &run).await;
    assert_eq!(report["run"]["status"], "completed");
    assert_eq!(report["summary"]["errorRate"], 1.0);
    assert!(common::null_at(&report, "/snapshot/stats/total"), "no successful iteration, no percentiles");
    let error = report["snapshot"]["results"][1]["error"].as_str().unwrap();
    assert!(error.starts_with("http_401: "), "{error}");
}

/// A closed loop's first round runs on connections opened before it, as every later round does, and the report says
/// so (that the requests then go out on those connections: `tests/lab/engine.rs`).
#[tokio::test]
async fn a_closed_loop_run_opens_its_connections_before_its_first_request_and_says_so() {
    let Rig { app, cookie, connector, sim } = rig(SimConfig::fixed_ms(20, 1, 4)).await;
    let run = finished(&app, &cookie, plan(&connector, 6, json!({"kind": "closed", "concurrency": 6}))).await;

    let reply = report(&app, &cookie, &run).await;
    assert_eq!(reply["run"]["openedAhead"], json!({"asked": 6, "kept": 6, "http2": false}));
    let results = reply["snapshot"]["results"].as_array().unwrap();
    assert!(results.iter().all(|r| common::null_at(r, "/error") && r["reconnects"] == 0), "{results:?}");
    let notes = reply["snapshot"]["honesty"].to_string();
    assert!(
        notes.contains("the run's 6 connection(s), one per request in flight, were opened before its first request"),
        "{notes}"
    );
    let stats: Value = reqwest::get(format!("http://{}/sim/stats", sim.addr())).await.unwrap().json().await.unwrap();
    assert_eq!(stats["completed"], 13, "1 warm-up + 2 prompts × 6 iterations");
}

#[tokio::test]
async fn an_open_loop_run_reports_its_schedule_and_latency_from_the_intended_send() {
    let Rig { app, cookie, connector, sim: _sim } = rig(SimConfig::fixed_ms(5, 1, 4)).await;
    let mode = json!({"kind": "open", "ratePerSecond": 100.0, "poisson": true, "maxConcurrency": 4});
    let run = finished(&app, &cookie, plan(&connector, 4, mode)).await;
    let report = report(&app, &cookie, &run).await;
    let honesty = report["snapshot"]["honesty"].to_string();
    assert!(honesty.contains("open loop at 100 request(s)/s (Poisson arrivals)"), "{honesty}");
    assert!(honesty.contains("intended send time"), "{honesty}");
    assert!(common::null_at(&report, "/run/openedAhead"), "an open loop's need is not known ahead");
    assert!(
        report["summary"]["totalFromIntended"]["p50"].as_f64().unwrap()
            >= report["summary"]["total"]["p50"].as_f64().unwrap()
    );
}

#[tokio::test]
async fn cancelling_keeps_finished_iterations_and_says_so() {
    let Rig { app, cookie, connector, sim: _sim } = rig(SimConfig::fixed_ms(100, 1, 2)).await;
    let run = start(&app, &cookie, plan(&connector, 200, json!({"kind": "closed", "concurrency": 1}))).await;
    // Cancelled once two iterations are stored, while the rest (100 ms each, one at a time) are still to come.
    let at_cancel = stored_at_least(&app, &cookie, &run, 2).await;
    let (status, text) = app.call("runs/cancel", json!({"id": run}), Some(&cookie)).await;
    assert_eq!((status, text.as_str()), (200, "true"));
    let events = follow(&app, &cookie, &run).await;
    assert_eq!(events.last().unwrap().1["progress"]["status"], "cancelled");
    let report = report(&app, &cookie, &run).await;
    let kept = report["snapshot"]["results"].as_array().unwrap().len();
    // Stopped within a few of its 100 ms requests (one at a time), every stored one kept.
    assert!((at_cancel..at_cancel + 10).contains(&kept), "{at_cancel} stored at the cancel, {kept} kept");
    assert!(report["snapshot"]["honesty"].to_string().contains(&format!("cancelled after {kept} of 401")));
    let (_, again) = app.call("runs/cancel", json!({"id": run}), Some(&cookie)).await;
    assert_eq!(again, "false", "no longer running");
}

#[tokio::test]
async fn a_stopping_server_closes_its_running_run_as_interrupted_with_what_finished() {
    let Rig { app, cookie, connector, sim: _sim } = rig(SimConfig::fixed_ms(100, 1, 2)).await;
    let run = start(&app, &cookie, plan(&connector, 200, json!({"kind": "closed", "concurrency": 1}))).await;
    stored_at_least(&app, &cookie, &run, 2).await;
    // What the server does after its last request on SIGTERM.
    assert_eq!(app.state.runs.stop_all(Duration::from_secs(10)).await, 0, "the run ended within the grace");
    let report = report(&app, &cookie, &run).await;
    assert_eq!(report["run"]["status"], "interrupted", "stopped by the server, not cancelled by its user");
    let kept = report["snapshot"]["results"].as_array().unwrap().len();
    assert!(kept >= 2, "what finished is kept: {kept}");
    let honesty = report["snapshot"]["honesty"].to_string();
    assert!(honesty.contains(&format!("The server stopped during the run; {kept} of 401")), "{honesty}");
}

#[tokio::test]
async fn invalid_plans_and_other_workspaces_are_refused() {
    let app = spawn_app().await;
    let (_, cookie) = app.session_for("owner").await;
    let (_, other) = app.session_for("other").await;
    let connector = connector(&app, &cookie, "http://127.0.0.1:9/v1", None).await;
    let (status, text) =
        app.call("runs/start", plan(&connector, 0, json!({"kind": "closed", "concurrency": 1})), Some(&cookie)).await;
    assert_eq!(status, 400);
    assert_eq!(serde_json::from_str::<Value>(&text).unwrap()["detail"]["field"], "iterations");
    let (status, text) =
        app.call("runs/start", plan(&connector, 1, json!({"kind": "closed", "concurrency": 0})), Some(&cookie)).await;
    assert_eq!(serde_json::from_str::<Value>(&text).unwrap()["detail"]["field"], "mode.concurrency", "{status} {text}");
    let text = refused(&app, &cookie, plan(&connector, 1, json!({"kind": "sideways"}))).await;
    assert!(text.contains("mode"), "{text}");
    let (status, _) =
        app.call("runs/start", plan(&connector, 1, json!({"kind": "closed", "concurrency": 1})), Some(&other)).await;
    assert_eq!(status, 404, "another workspace's connector");

    let run = start(&app, &cookie, plan(&connector, 1, json!({"kind": "closed", "concurrency": 1}))).await;
    for path in ["runs/report", "runs/view", "runs/iterations"] {
        let (status, _) = app.call(path, json!({"id": run, "query": {}}), Some(&other)).await;
        assert_eq!(status, 404, "{path} of another workspace's run");
    }
    let response = common::client()
        .get(format!("{}/api/runs/{run}/events", app.base))
        .header("cookie", &other)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 404);
    let response = common::client().get(format!("{}/api/runs/{run}/events", app.base)).send().await.unwrap();
    assert_eq!(response.status(), 401);
}

#[tokio::test]
async fn a_run_against_a_flaky_endpoint_completes_and_counts_each_failure() {
    use latency_guard::sim::Fault;
    let config = SimConfig {
        fault_rate: 0.5,
        faults: vec![Fault::RateLimit, Fault::MidStreamError, Fault::Reset, Fault::Truncated],
        ..SimConfig::fixed(Duration::from_millis(2), Duration::from_millis(1), 6)
    };
    let Rig { app, cookie, connector, sim: _sim } = rig(config).await;
    let run = finished(&app, &cookie, plan(&connector, 30, json!({"kind": "closed", "concurrency": 4}))).await;
    let report = report(&app, &cookie, &run).await;
    assert_eq!(report["run"]["status"], "completed");
    let results = report["snapshot"]["results"].as_array().unwrap();
    assert_eq!(results.len(), 61, "every request is an iteration, failed or not");
    let codes: std::collections::BTreeSet<String> =
        results.iter().filter_map(|r| r["error"].as_str()).map(|e| e.split(':').next().unwrap().to_string()).collect();
    assert!(
        codes.iter().all(|c| ["http_429", "stream_error", "reset", "truncated"].contains(&c.as_str())),
        "{codes:?}"
    );
    assert!(codes.len() >= 3, "with 61 requests at 50% faults, most kinds show up: {codes:?}");
    let rate = report["summary"]["errorRate"].as_f64().unwrap();
    assert!((0.25..0.75).contains(&rate), "error rate {rate}");
    assert!(report["snapshot"]["stats"]["total"]["p50"].as_f64().is_some(), "successes still get percentiles");
}

#[tokio::test]
async fn rate_limited_requests_are_retried_when_asked_and_the_retries_are_reported() {
    use latency_guard::sim::Fault;
    let config = SimConfig {
        fault_rate: 0.5,
        faults: vec![Fault::RateLimit],
        ..SimConfig::fixed(Duration::from_millis(2), Duration::from_millis(1), 4)
    };
    let Rig { app, cookie, connector, sim: _sim } = rig(config).await;
    let mut body = plan(&connector, 10, json!({"kind": "closed", "concurrency": 4}));
    body["input"]["retries"] = json!(5);
    let run = finished(&app, &cookie, body).await;
    let report = report(&app, &cookie, &run).await;
    let results = report["snapshot"]["results"].as_array().unwrap();
    let retried = results.iter().filter(|r| r["retries"].as_u64().unwrap() > 0).count();
    assert!(retried >= 3, "about half of 21 requests hit a 429 at least once: {retried}");
    let failed = results.iter().filter(|r| !common::null_at(r, "/error")).count();
    assert!(failed <= 2, "six tries at 50% leave few failures: {failed}");
    let honesty = report["snapshot"]["honesty"].to_string();
    assert!(honesty.contains("up to 5 retries after HTTP 429"), "{honesty}");
    assert!(honesty.contains(&format!("{retried} iteration(s) were retried")), "{honesty}");

    let mut too_many = plan(&connector, 1, json!({"kind": "closed", "concurrency": 1}));
    too_many["input"]["retries"] = json!(6);
    let (status, text) = app.call("runs/start", too_many, Some(&cookie)).await;
    assert_eq!(status, 400);
    assert_eq!(serde_json::from_str::<Value>(&text).unwrap()["detail"]["field"], "retries");
}

/// A server that closes each connection after one response while advertising keep-alive (as llama.cpp's does):
/// a request sent on the pooled connection is lost before any response byte. The engine re-sends it once on a
/// fresh connection, so a healthy endpoint shows no errors; the report counts the re-sent requests and says how
/// they were timed. With a fresh connection per request nothing is lost and the notes say set-up is measured.
#[tokio::test]
async fn a_server_closing_kept_alive_connections_shows_no_false_errors() {
    let config = SimConfig {
        close_after_response: true,
        ..SimConfig::fixed(Duration::from_millis(2), Duration::from_millis(1), 4)
    };
    let Rig { app, cookie, connector, sim: _sim } = rig(config).await;

    let body = plan(&connector, 15, json!({"kind": "closed", "concurrency": 1}));
    let run = finished(&app, &cookie, body.clone()).await;
    let reply = report(&app, &cookie, &run).await;
    let results = reply["snapshot"]["results"].as_array().unwrap();
    assert_eq!(results.len(), 31);
    assert!(results.iter().all(|r| common::null_at(r, "/error")), "no false errors: {results:?}");
    let reconnects: u64 = results.iter().map(|r| r["reconnects"].as_u64().unwrap()).sum();
    assert!(reconnects >= 10, "every reuse of a closed connection was re-sent: {reconnects}");
    assert!(results.iter().all(|r| r["retries"] == 0), "not counted as rate-limit retries");
    let notes = reply["snapshot"]["honesty"].to_string();
    assert!(notes.contains(&format!("before answering {reconnects} request(s)")), "{notes}");
    common::assert_report_schema(&reply["snapshot"]);

    let mut fresh = body;
    fresh["input"]["connections"] = json!("fresh");
    let run = finished(&app, &cookie, fresh).await;
    let reply = report(&app, &cookie, &run).await;
    let results = reply["snapshot"]["results"].as_array().unwrap();
    assert!(results.iter().all(|r| common::null_at(r, "/error") && r["reconnects"] == 0), "{results:?}");
    assert!(reply["snapshot"]["honesty"].to_string().contains("a fresh connection per request"));
    assert_eq!(reply["run"]["plan"]["connections"], "fresh");
    assert!(common::null_at(&reply, "/run/openedAhead"), "set-up is measured on purpose");
}

/// A long prompt is sent whole but carried once: rows shorten it, so the report reply, the run page and the shared
/// report stay small however many iterations there are; a prompt over the limit is refused with the field named.
#[tokio::test]
async fn a_long_prompt_keeps_reports_pages_and_shared_reports_small() {
    let Rig { app, cookie, connector, sim: _sim } = rig(SimConfig::fixed_ms(0, 1, 2)).await;
    let long = "lorem ipsum ".repeat(8_000); // 96,000 characters
    let mut body = plan(&connector, 100, json!({"kind": "closed", "concurrency": 4}));
    body["input"]["prompts"] = json!([long]);
    let run = finished(&app, &cookie, body.clone()).await;

    let (status, reply) = app.call("runs/report", json!({"id": run}), Some(&cookie)).await;
    assert_eq!(status, 200);
    assert!(reply.len() < 1_000_000, "report reply {} bytes for 101 rows of a 96,000-character prompt", reply.len());
    let report: Value = serde_json::from_str(&reply).unwrap();
    let row_prompt = report["snapshot"]["results"][0]["prompt"].as_str().unwrap();
    assert!(row_prompt.ends_with("… [+95000 characters]"), "{}", &row_prompt[row_prompt.len() - 40..]);
    assert_eq!(report["run"]["plan"]["prompts"][0].as_str().unwrap().len(), long.len(), "the settings keep it whole");
    assert!(report["snapshot"]["honesty"].to_string().contains("longer than 1000 characters"));
    let (status, _, page) = app.get(&format!("/runs/{run}"), Some(&cookie)).await;
    assert_eq!(status, 200);
    assert!(page.len() < 1_500_000, "run page {} bytes", page.len());
    let (_, shared) = app.call("reports/share", json!({"id": run}), Some(&cookie)).await;
    let token = serde_json::from_str::<Value>(&shared).unwrap()["token"].as_str().unwrap().to_string();
    let public = common::client()
        .get(format!("{}/api/public/reports/{run}", app.base))
        .header("x-share-token", token)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(public.len() < 1_000_000, "shared report {} bytes", public.len());

    body["input"]["prompts"] = json!(["x".repeat(100_001)]);
    let reply = refused(&app, &cookie, body).await;
    assert!(reply.contains("prompts[0]") && reply.contains("at most 100000"), "{reply}");
}

/// TPOT, ITL and the first output against an endpoint whose pace is known: 4 ms between tokens, 16 tokens, TTFT
/// 20 ms. Each row carries them, the stats hold their percentiles (ITL pooled, ±1 %), and the notes define them;
/// they survive the database (the report is read back), and the CSV keeps exactly its columns.
#[tokio::test]
async fn tpot_and_itl_come_out_at_the_endpoints_known_pace() {
    let Rig { app, cookie, connector, sim: _sim } = rig(SimConfig::fixed_ms(20, 4, 16)).await;
    let run = finished(&app, &cookie, plan(&connector, 5, json!({"kind": "closed", "concurrency": 2}))).await;
    let report = report(&app, &cookie, &run).await;
    let stats = &report["snapshot"]["stats"];
    let near = |v: &Value, want: f64, slack: f64| {
        let got = v.as_f64().unwrap();
        assert!((got - want).abs() <= slack, "{got} vs {want} ± {slack}");
    };
    // The scheduler adds a little to each gap; it never makes one shorter.
    near(&stats["tpot"]["p50"], 4.0, 1.5);
    near(&stats["itl"]["p50"], 4.0, 1.5);
    assert!(stats["itl"]["p99"].as_f64().unwrap() >= stats["itl"]["p50"].as_f64().unwrap());
    assert_eq!(stats["firstOutput"], stats["ttft"], "no reasoning: the first output is the first answer token");
    for row in report["snapshot"]["results"].as_array().unwrap() {
        near(&row["tpotMs"], 4.0, 2.0);
        near(&row["itlMs"], 4.0, 2.0);
        assert!(row["maxItlMs"].as_f64().unwrap() >= row["itlMs"].as_f64().unwrap());
        assert_eq!(row["firstOutputMs"], row["ttftMs"]);
    }
    let notes = report["snapshot"]["honesty"].to_string();
    assert!(
        notes.contains("TPOT (time per output token) = (last output chunk − first output chunk) / (tokensOut − 1)"),
        "{notes}"
    );
    assert!(notes.contains("pooled over all tokens of all successful requests"), "{notes}");
    common::assert_report_schema(&report["snapshot"]);
    let csv = latency_guard::runs::report::to_csv(&serde_json::from_value(report["snapshot"].clone()).unwrap());
    assert_eq!(
        csv.lines().next().unwrap(),
        "report_id,agent,connector_model,prompt,iteration,ttft_ms,total_ms,tokens_in,tokens_out,cost_usd,error,\
         sent_at_ms,tpot_ms,itl_ms,cached_tokens"
    );
}

/// Objectives carried by a run: each request judged (rows say `good`), goodput beside the raw rates, each
/// objective's outcome with its margin, the notes saying how; a bad objective is refused with its field.
#[tokio::test]
async fn a_run_with_objectives_reports_goodput_and_each_objectives_outcome() {
    let Rig { app, cookie, connector, sim: _sim } = rig(SimConfig::fixed_ms(20, 2, 8)).await;
    let mut body = plan(&connector, 4, json!({"kind": "closed", "concurrency": 2}));
    body["input"]["slos"] = json!(["ttft_ms<=5000", "total_ms<=1", "ttft_p95_ms<=5000", "tpot_p50_ms<=0.5"]);
    let run = finished(&app, &cookie, body.clone()).await;
    let report = report(&app, &cookie, &run).await;
    let g = &report["snapshot"]["stats"]["goodput"];
    // Nothing finishes within 1 ms: no request is good, yet every one met the generous TTFT bound.
    assert_eq!((g["measured"].as_u64(), g["good"].as_u64(), g["goodFraction"].as_f64()), (Some(8), Some(0), Some(0.0)));
    assert_eq!(g["objectives"][0]["metFraction"], 1.0);
    assert_eq!(
        (g["objectives"][1]["met"].as_bool(), g["objectives"][1]["metFraction"].as_f64()),
        (Some(false), Some(0.0))
    );
    let p95 = &g["objectives"][2];
    assert_eq!(p95["met"], true);
    let ttft_p95 = report["snapshot"]["stats"]["ttft"]["p95"].as_f64().unwrap();
    assert!((p95["measuredMs"].as_f64().unwrap() - ttft_p95).abs() < 1e-9, "judged on the reported percentile");
    assert!((p95["marginMs"].as_f64().unwrap() - (5000.0 - ttft_p95)).abs() < 1e-9);
    assert_eq!(g["objectives"][3]["met"], false, "TPOT is about 2 ms, not 0.5");
    assert!(g["requestsPerSec"].as_f64().unwrap() > 0.0 && g["goodRequestsPerSec"] == 0.0);
    let rows = report["snapshot"]["results"].as_array().unwrap();
    assert!(rows.iter().filter(|r| !r["warmup"].as_bool().unwrap()).all(|r| r["good"] == false));
    assert!(rows.iter().filter(|r| r["warmup"].as_bool().unwrap()).all(|r| r.get("good").is_none()));
    assert_eq!(report["run"]["plan"]["slos"][2], "ttft_p95_ms<=5000", "the plan keeps them as written");
    assert!(report["snapshot"]["honesty"]
        .to_string()
        .contains("A request is good when it succeeded and met every per-request objective"));
    common::assert_report_schema(&report["snapshot"]);

    body["input"]["slos"] = json!(["ttft_ms<=500", "latency_p99<=3"]);
    let text = refused(&app, &cookie, body).await;
    assert!(text.contains(r#""field":"slos[1]""#), "{text}");
}

/// A time limit through the API: an open loop of 20 req/s for up to 10,000 iterations stops sending 1 s after its
/// first measured send; the run completes, its plan keeps the limit and its report says how it was cut.
#[tokio::test]
async fn a_time_limited_run_stops_sending_at_its_limit_and_completes() {
    let Rig { app, cookie, connector, sim: _sim } = rig(SimConfig::fixed_ms(10, 1, 4)).await;
    let mut body =
        plan(&connector, 10_000, json!({"kind": "open", "ratePerSecond": 20.0, "poisson": false, "maxConcurrency": 8}));
    body["input"]["durationS"] = json!(1.0);
    let run = start(&app, &cookie, body.clone()).await;
    let events = follow(&app, &cookie, &run).await;
    assert_eq!(events.last().unwrap().1["progress"]["status"], "completed");
    let report = report(&app, &cookie, &run).await;
    assert_eq!(report["run"]["plan"]["durationMs"], 1000);
    let measured = report["summary"]["measured"].as_u64().unwrap();
    // Sends every 50 ms from the warm-up at 0: the measured ones at 50, 100, …, 1,000 ms — the one due exactly at
    // the limit may go or not.
    assert!((19..=21).contains(&measured), "{measured} measured");
    let notes = report["snapshot"]["honesty"].as_array().unwrap();
    let note = notes.iter().filter_map(Value::as_str).find(|n| n.starts_with("Time limit")).unwrap();
    assert!(note.contains(&format!("{measured} of at most 20000 measured requests were sent")), "{note}");

    body["input"]["durationS"] = json!(0.2);
    let text = refused(&app, &cookie, body).await;
    assert!(text.contains("durationS") && text.contains("between 1 and 86400 seconds"), "{text}");
}

/// The export buttons' compact form (`runs/export`) reads back as exactly the snapshot `runs/report` gives, its
/// iterations in fewer bytes, with the report's sections rendered for a file.
#[tokio::test]
async fn the_compact_export_form_is_the_same_snapshot_in_fewer_bytes() {
    let Rig { app, cookie, connector, sim: _sim } = rig(SimConfig::fixed_ms(1, 1, 4)).await;
    let run = finished(&app, &cookie, plan(&connector, 200, json!({"kind": "closed", "concurrency": 8}))).await;
    let (status, keyed) = app.call("runs/report", json!({"id": run}), Some(&cookie)).await;
    assert_eq!(status, 200, "{keyed}");
    let (status, compact) = app.call("runs/export", json!({"id": run}), Some(&cookie)).await;
    assert_eq!(status, 200, "{compact}");
    let keyed: latency_guard::runs::api::RunReport = serde_json::from_str(&keyed).unwrap();
    let read: latency_guard::runs::report::CompactSnapshot = serde_json::from_str(&compact).unwrap();
    assert_eq!(read.version, latency_guard::runs::report::COMPACT_VERSION);
    let columns = serde_json::to_string(&read.results).unwrap().len();
    let files = read.into_files().unwrap();
    assert_eq!(files.snapshot, keyed.snapshot);
    assert!(files.sections.as_str().contains(r#"id="stats""#) && files.sections.as_str().contains("<svg"));
    let rows = serde_json::to_string(&keyed.snapshot.results).unwrap().len();
    assert!(columns * 2 < rows, "iterations as columns {columns} bytes, as rows {rows}");
}

async fn run_view(app: &TestApp, cookie: &str, run: &str) -> Value {
    read_run(app, cookie, "runs/view", run).await
}

#[tokio::test]
async fn a_finished_runs_report_view_and_export_are_built_once_and_follow_a_rename() {
    common::on_both(|app| async move {
        let sim = sim::spawn_local(SimConfig::fixed_ms(100, 1, 8)).await.unwrap();
        let (_, cookie) = app.session_for("owner").await;
        let connector = connector(&app, &cookie, &sim.base_url(), None).await;
        let run = start(&app, &cookie, plan(&connector, 4, json!({"kind": "closed", "concurrency": 1}))).await;

        // While the run goes, its view is built on every visit and never kept: it changes.
        let running = run_view(&app, &cookie, &run).await;
        assert_eq!(running["run"]["status"], "running");
        assert!(app.state.report_views.is_empty());

        follow(&app, &cookie, &run).await;
        let first = run_view(&app, &cookie, &run).await;
        assert_eq!(first["run"]["status"], "completed");
        assert_eq!(first["view"]["iterations"], 9, "1 warm-up + 2 prompts × 4 iterations");
        assert_eq!(app.state.report_views.len(), 1, "a finished run's view is kept");
        assert_eq!(run_view(&app, &cookie, &run).await, first, "the kept view is the one built from the store");
        let exported = read_run_text(&app, &cookie, "runs/export", &run).await;
        assert!(app.state.export_snapshots.bytes() >= exported.len(), "the encoded snapshot is kept");
        assert_eq!(read_run_text(&app, &cookie, "runs/export", &run).await, exported, "sent again as encoded");

        // A rename is seen at once: the kept view was built from the run as it was.
        let (status, text) =
            app.call("runs/rename", json!({"id": run, "title": "After the rename"}), Some(&cookie)).await;
        assert_eq!(status, 200, "{text}");
        let renamed = run_view(&app, &cookie, &run).await;
        assert_eq!(renamed["run"]["title"], "After the rename");
        assert_eq!(renamed["view"]["report"]["title"], "After the rename");
        assert_eq!(renamed["view"]["stats"], first["view"]["stats"]);
        assert_eq!(app.state.report_views.len(), 1);
        let renamed_export = read_run(&app, &cookie, "runs/export", &run).await;
        let first_export: Value = serde_json::from_str(&exported).unwrap();
        assert_eq!(renamed_export["head"]["report"]["title"], "After the rename");
        assert_eq!(renamed_export["results"], first_export["results"]);

        // A deleted run's view is not served from what was kept.
        let (status, text) = app.call("runs/delete", json!({"id": run}), Some(&cookie)).await;
        assert_eq!(status, 200, "{text}");
        assert_eq!(app.call("runs/view", json!({"id": run}), Some(&cookie)).await.0, 404);
    })
    .await;
}

/// A shared server's quota: a wallet's workspace runs at most `workspace-max-running-runs` at once (the next start
/// is refused, naming the setting, until one ends); the install owner's is not limited.
#[tokio::test]
async fn a_wallets_workspace_runs_no_more_at_once_than_the_quota_and_the_owners_is_not_limited() {
    let dir = tempfile::tempdir().unwrap();
    let url = latency_guard::config::sqlite_url(&dir.path().join("app.db"));
    let app = common::spawn_app_on(&url, |s| s.workspace_quota.max_running_runs = 1).await;
    let slow = sim::spawn_local(SimConfig::fixed_ms(2_000, 1, 4)).await.unwrap();
    let wallet = latency_guard::account::service::wallet_identity("0x1563915e194D8CfBA1943570603F7606A3115508");
    for (owner, second_start) in [(wallet.as_str(), 400), (latency_guard::store::LOCAL_OWNER, 200)] {
        let (_, cookie) = app.session_for(owner).await;
        let made = json!({"input": {"name": "slow", "baseUrl": slow.base_url(), "model": "m"}});
        let (_, connector) = app.call("connectors/create", made, Some(&cookie)).await;
        let connector = serde_json::from_str::<Value>(&connector).unwrap()["id"].clone();
        let plan = json!({"input": {"connectorId": connector, "agent": {"name": "bot", "tokenBudget": 4},
                                    "prompts": ["a"], "iterations": 1, "mode": {"kind": "closed", "concurrency": 1}}});
        let (status, first) = app.call("runs/start", plan.clone(), Some(&cookie)).await;
        assert_eq!(status, 200, "{first}");
        let (status, second) = app.call("runs/start", plan.clone(), Some(&cookie)).await;
        assert_eq!(status, second_start, "{owner}: {second}");
        if status == 400 {
            assert!(second.contains("workspace-max-running-runs"), "{second}");
        }
        for run in
            [&first, &second].into_iter().filter_map(|r| serde_json::from_str::<Value>(r).ok()?.get("id").cloned())
        {
            app.call("runs/cancel", json!({"id": run}), Some(&cookie)).await;
        }
    }
    slow.stop();
}

/// A run started with a workload through the API: prompts made to the token by the simulator's `/tokenize`, warm-ups
/// with prompts of their own, every row's asked lengths stored with its prompt, and the report's workload section;
/// a workload with prompts, or with impossible lengths, is refused with the field named.
#[tokio::test]
async fn a_run_with_a_workload_sends_exact_lengths_and_reports_them() {
    let Rig { app, cookie, connector, sim: _sim } = rig(SimConfig::fixed_ms(1, 0, 3)).await;
    let workload = json!({"kind": "synthetic", "requests": 6, "seed": 11,
                          "input": {"kind": "uniform", "min": 40, "max": 400},
                          "output": {"kind": "fixed", "tokens": 12}});
    let body = |workload: Value, prompts: Value| {
        json!({"input": {"connectorId": connector, "agent": {"name": "bot", "tokenBudget": 64},
                         "prompts": prompts, "iterations": 1, "warmup": 2, "workload": workload,
                         "mode": {"kind": "closed", "concurrency": 3}}})
    };
    let run = finished(&app, &cookie, body(workload.clone(), json!([]))).await;
    let snapshot = report(&app, &cookie, &run).await["snapshot"].clone();
    let results = snapshot["results"].as_array().unwrap();
    assert_eq!(results.len(), 8, "2 warm-ups and 6 requests");
    for r in results {
        assert!(common::null_at(r, "/error"), "{r}");
        assert_eq!(r["madeInputTokens"], r["askedInputTokens"], "{r}");
        assert_eq!(r["tokensIn"].as_u64().unwrap(), r["askedInputTokens"].as_u64().unwrap() + 2, "{r}");
        assert_eq!((r["askedOutputTokens"].as_u64(), r["tokensOut"].as_u64()), (Some(12), Some(12)));
        assert!(r["prompt"].as_str().unwrap().len() > 40, "the row keeps the prompt made: {r}");
    }
    let prompts: std::collections::BTreeSet<&str> = results.iter().map(|r| r["prompt"].as_str().unwrap()).collect();
    assert_eq!(prompts.len(), 8, "warm-ups send prompts of their own, never a measured one ahead of it");
    assert_eq!(snapshot["workload"]["spec"], workload);
    assert_eq!(snapshot["workload"]["askedInput"]["n"], 6, "warm-ups are not in the figures");
    common::assert_report_schema(&snapshot);
    let (_, page) = app.call("runs/page", json!({"id": run}), Some(&cookie)).await;
    assert!(page.contains("workload synthetic: input uniform 40–400 tokens, output 12 tokens"), "{page}");

    let with_prompts = refused(&app, &cookie, body(workload.clone(), json!(["hi"]))).await;
    assert!(with_prompts.contains("leave prompts empty"), "{with_prompts}");
    let mut impossible = workload;
    impossible["input"] = json!({"kind": "normal", "mean": 100, "sd": -5, "min": 1, "max": 200});
    let reply = refused(&app, &cookie, body(impossible, json!([]))).await;
    assert!(reply.contains("workload.input.sd"), "{reply}");
    // A dataset or trace names a path: the server never reads a file a request names.
    let file = json!({"path": "/etc/passwd", "format": "csv", "rows": 5});
    for reads in [
        json!({"kind": "dataset", "file": file, "requests": 1}),
        json!({"kind": "trace", "file": {"path": "/etc/hosts", "format": "burstGpt", "rows": 5}, "requests": 1}),
    ] {
        let mut plan = body(reads, json!([]));
        plan["input"]["mode"] = json!({"kind": "open", "ratePerSecond": 1, "maxConcurrency": 1});
        plan["input"]["warmup"] = json!(0);
        let reply = refused(&app, &cookie, plan).await;
        assert!(reply.contains("workload.file") && reply.contains("a server reads no file a request names"), "{reply}");
    }
    let (_, runs) = app.call("runs/list", json!({}), Some(&cookie)).await;
    assert_eq!(serde_json::from_str::<Value>(&runs).unwrap().as_array().unwrap().len(), 1, "nothing was recorded");
}

/// A multi-turn workload and a ramp through the API: each conversation's turns carry its answers back (the
/// simulator counts 2 + 30, then 32 + 5 + 1 + 10 + 1 prompt tokens), the report has its figures by turn and its
/// conversations, and the run's page names the workload; a ramp's sends are warm-ups, the rest measured.
#[tokio::test]
async fn a_multi_turn_run_and_a_ramp_through_the_api() {
    let Rig { app, cookie, connector, sim: _sim } = rig(SimConfig::fixed_ms(1, 0, 5)).await;
    let workload = json!({"kind": "multiTurn", "users": 3, "turns": 2, "seed": 2,
                          "first": {"kind": "fixed", "tokens": 30}, "followUp": {"kind": "fixed", "tokens": 10},
                          "output": {"kind": "fixed", "tokens": 5}, "think": {"kind": "fixed", "ms": 5}});
    let body = json!({"input": {"connectorId": connector, "agent": {"name": "bot", "tokenBudget": 64},
                                "prompts": [], "iterations": 1, "workload": workload,
                                "mode": {"kind": "closed", "concurrency": 2}}});
    let run = finished(&app, &cookie, body).await;
    let snapshot = report(&app, &cookie, &run).await["snapshot"].clone();
    let by_turn = snapshot["workload"]["byTurn"].as_array().unwrap().clone();
    let means: Vec<f64> = by_turn.iter().map(|t| t["promptTokensMean"].as_f64().unwrap()).collect();
    assert_eq!(means, [32.0, 49.0], "{by_turn:?}");
    assert_eq!(snapshot["workload"]["conversations"], json!({"started": 3, "completed": 3}));
    common::assert_report_schema(&snapshot);
    let (_, page) = app.call("runs/page", json!({"id": run}), Some(&cookie)).await;
    assert!(page.contains("multi-turn: 3 conversation(s) of 2 turns"), "{page}");

    let ramp = json!({"input": {"connectorId": connector, "agent": {"name": "bot", "tokenBudget": 8},
                                "prompts": ["hi"], "iterations": 400, "durationS": 1,
                                "shape": {"kind": "ramp", "curve": "linear", "from": 1, "seconds": 0.2},
                                "mode": {"kind": "open", "ratePerSecond": 100, "maxConcurrency": 8}}});
    let run = finished(&app, &cookie, ramp).await;
    let results = report(&app, &cookie, &run).await["snapshot"]["results"].as_array().unwrap().clone();
    let due = |r: &Value| r["sentAtMs"].as_f64().unwrap() - r["scheduleLagMs"].as_f64().unwrap();
    assert!(results.iter().any(|r| r["warmup"] == true) && results.iter().any(|r| r["warmup"] == false));
    assert!(results.iter().all(|r| (r["warmup"] == true) == (due(r) < 200.0)), "the ramp's sends are its warm-ups");
}

/// A saved workload: saved, listed, named by a run (which copies it: changing it afterwards changes no report),
/// replaced and deleted, on both databases; another workspace can neither use nor see it, and an impossible one
/// is refused with its field.
#[tokio::test]
async fn a_saved_workload_is_run_by_name_and_the_report_keeps_what_was_sent() {
    common::on_both(|app| async move {
        let sim = sim::spawn_local(SimConfig::fixed_ms(1, 0, 3)).await.unwrap();
        let (_, cookie) = app.session_for("owner").await;
        let own = connector(&app, &cookie, &sim.base_url(), None).await;
        let spec = json!({"kind": "synthetic", "requests": 3, "seed": 9, "input": {"kind": "fixed", "tokens": 20},
                          "output": {"kind": "fixed", "tokens": 3}});
        let (status, saved) = app
            .call("workloads/save", json!({"id": null, "input": {"name": " short chat ", "spec": spec}}), Some(&cookie))
            .await;
        assert_eq!(status, 200, "{saved}");
        let saved: Value = serde_json::from_str(&saved).unwrap();
        assert_eq!((saved["name"].as_str(), &saved["spec"]), (Some("short chat"), &spec));
        let plan = |workload: &Value| {
            json!({"input": {"connectorId": own, "agent": {"name": "bot", "tokenBudget": 8},
                                               "prompts": [], "iterations": 1, "workloadId": workload,
                                               "mode": {"kind": "closed", "concurrency": 1}}})
        };
        let run = finished(&app, &cookie, plan(&saved["id"])).await;
        let mut changed = spec.clone();
        changed["requests"] = json!(5);
        let (status, _) = app
            .call(
                "workloads/save",
                json!({"id": saved["id"], "input": {"name": "short chat", "spec": changed}}),
                Some(&cookie),
            )
            .await;
        assert_eq!(status, 200);
        let snapshot = report(&app, &cookie, &run).await["snapshot"].clone();
        assert_eq!(snapshot["workload"]["spec"], spec, "the report keeps the workload as it was sent");
        assert_eq!(snapshot["results"].as_array().unwrap().len(), 3);
        let (_, listed) = app.call("workloads/list", json!({}), Some(&cookie)).await;
        assert_eq!(serde_json::from_str::<Value>(&listed).unwrap()[0]["spec"]["requests"], 5);

        let (_, b_cookie) = app.session_for("someone else").await;
        let b_connector = connector(&app, &b_cookie, &sim.base_url(), None).await;
        let mut b_plan = plan(&saved["id"]);
        b_plan["input"]["connectorId"] = json!(b_connector);
        let (status, reply) = app.call("runs/start", b_plan, Some(&b_cookie)).await;
        assert_eq!(status, 404, "another workspace's saved workload is not found: {reply}");

        let mut both = plan(&saved["id"]);
        both["input"]["workload"] = spec.clone();
        assert!(refused(&app, &cookie, both).await.contains("workloadId"));
        let mut impossible = spec.clone();
        impossible["input"] = json!({"kind": "fixed", "tokens": 0});
        let (status, reply) = app
            .call("workloads/save", json!({"id": null, "input": {"name": "x", "spec": impossible}}), Some(&cookie))
            .await;
        assert!(status == 400 && reply.contains("workload.input.tokens"), "{reply}");
        let (status, _) = app.call("workloads/delete", json!({"id": saved["id"]}), Some(&cookie)).await;
        assert_eq!(status, 200);
        let (status, _) = app.call("runs/start", plan(&saved["id"]), Some(&cookie)).await;
        assert_eq!(status, 404, "a deleted workload is not found");
        assert_eq!(report(&app, &cookie, &run).await["snapshot"]["workload"]["spec"], spec, "and the report stays");
    })
    .await;
}

/// A workload's run finds the server's tokenizer before its first send; a server whose `/tokenize` never answers
/// does not hold a Stop: the run ends cancelled at once, with nothing sent.
#[tokio::test]
async fn a_run_stopped_while_its_workload_waits_for_the_tokenizer_ends_at_once() {
    let app = spawn_app().await;
    let (_, cookie) = app.session_for("owner").await;
    let hanging = axum::Router::new().route("/tokenize", axum::routing::post(std::future::pending::<String>));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}/v1", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, hanging).await.unwrap() });
    let connector = connector(&app, &cookie, &base, None).await;
    let workload = json!({"kind": "synthetic", "requests": 3,
                          "input": {"kind": "fixed", "tokens": 50}, "output": {"kind": "fixed", "tokens": 5}});
    let body = json!({"input": {"connectorId": connector, "agent": {"name": "bot", "tokenBudget": 64}, "prompts": [],
                                "iterations": 1, "workload": workload, "mode": {"kind": "closed", "concurrency": 1}}});
    let run = start(&app, &cookie, body).await;
    let (status, text) = app.call("runs/cancel", json!({"id": run}), Some(&cookie)).await;
    assert_eq!((status, text.as_str()), (200, "true"));
    let ended = tokio::time::timeout(Duration::from_secs(10), follow(&app, &cookie, &run)).await;
    let events = ended.expect("the run ends well before the tokenizer's 30 s limit");
    assert_eq!(events.last().unwrap().1["progress"]["status"], "cancelled");
    assert_eq!(report(&app, &cookie, &run).await["snapshot"]["results"], json!([]));
}
