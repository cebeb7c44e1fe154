//! `GET /metrics` of a real server: off by default (404); with a token, only the token (401 otherwise); without
//! one, loopback clients only (403 for a client a proxy names). Scraped before and after a baseline run, Run now
//! on a slowed endpoint, a tick, a webhook delivery and an acknowledgement, the exposition (parsed by Spec Lab's
//! own reader) shows the counters moving by what happened, the open alert appearing and leaving, and the
//! schedule's last figures equal to the evaluation's own.
#![cfg(feature = "ssr")]
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a failing test should panic loudly")]

use crate::common::{self, follow_events, spawn_app_on, TestApp, TestDb};
use latency_guard::config::ApiKey;
use latency_guard::probe::Exposition;
use serde_json::{json, Value};
use std::time::Duration;

const TOKEN: &str = "metrics-token-0123456789";

/// `GET /metrics` with these headers: status, content type, body.
async fn get(app: &TestApp, headers: &[(&str, &str)]) -> (u16, String, String) {
    let mut request = common::client().get(format!("{}/metrics", app.base));
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = request.send().await.unwrap();
    let kind = response.headers().get("content-type").map(|v| v.to_str().unwrap().to_string()).unwrap_or_default();
    (response.status().as_u16(), kind, response.text().await.unwrap())
}

async fn scrape(app: &TestApp) -> Exposition {
    let (status, kind, body) = get(app, &[("authorization", &format!("Bearer {TOKEN}"))]).await;
    assert_eq!(status, 200, "{body}");
    assert!(kind.starts_with("application/openmetrics-text"), "{kind}");
    assert!(body.ends_with("# EOF\n"), "a whole OpenMetrics exposition");
    Exposition::parse(&body).unwrap()
}

/// The value of the series `name` whose labels include `labels` (0 when absent: a counter not yet incremented).
fn value(e: &Exposition, name: &str, labels: &[(&str, &str)]) -> f64 {
    e.samples
        .iter()
        .filter(|s| s.name == name && labels.iter().all(|(k, v)| s.label(k) == Some(*v)))
        .map(|s| s.value)
        .sum()
}

async fn the_exposition_moves_with_what_the_service_does(db: &TestDb) {
    let receiver = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let hook = format!("http://127.0.0.1:{}/hook", receiver.local_addr().unwrap().port());
    let app = axum::Router::new().route("/hook", axum::routing::post(|| async { axum::http::StatusCode::NO_CONTENT }));
    tokio::spawn(async move { axum::serve(receiver, app).await.unwrap() });
    let app = spawn_app_on(&db.url, |s| {
        s.metrics = true;
        s.metrics_token = Some(ApiKey::parse(TOKEN).unwrap());
        s.webhook_allow =
            latency_guard::outbound::AllowRules::parse(latency_guard::config::WEBHOOK_ALLOW, "127.0.0.1").unwrap();
    })
    .await;
    for headers in [&[][..], &[("authorization", "Bearer wrong-token-0123456789")][..]] {
        let (status, _, body) = get(&app, headers).await;
        assert_eq!(status, 401, "{body}");
        assert!(body.contains("metrics-token"), "{body}");
    }
    let before = scrape(&app).await;
    assert_eq!(
        before.kinds.get("latency_guard_guard_tick_duration_seconds"),
        Some(&latency_guard::probe::Kind::Histogram)
    );

    let (_, cookie) = app.session_for("metrics@example.com").await;
    let fast = latency_guard::sim::spawn_local(latency_guard::sim::SimConfig::fixed_ms(20, 15, 64)).await.unwrap();
    let connector = |url: String| json!({"name": "Sim", "baseUrl": url, "model": "sim-model"});
    let created = app.json(&cookie, "connectors/create", json!({"input": connector(fast.base_url())})).await;
    let connector_id = created["id"].as_str().unwrap().to_string();
    let set = json!({"id": null, "input": {"name": "Checkout", "prompts": (0..5).map(|i| json!({"text": format!("p{i}")})).collect::<Vec<_>>(), "maxTokens": 8}});
    let set_id = app.json(&cookie, "guard/sets/save", set).await["id"].as_str().unwrap().to_string();
    let schedule = json!({"name": "Checkout p95", "setId": set_id, "connectorId": connector_id, "cadence": "hourly",
        "notify": {"webhookUrl": hook}, "thresholds": [{"metric": "p95_ms", "op": "pct_increase", "value": 20, "severity": "critical"}]});
    let saved = app.json(&cookie, "guard/schedules/save", json!({"id": null, "input": schedule})).await;
    let schedule_id = saved["schedule"]["id"].as_str().unwrap().to_string();
    let plan = json!({"input": {"connectorId": connector_id, "agent": {"name": "bot", "tokenBudget": 8},
        "prompts": ["a", "b", "c", "d", "e"], "iterations": 2, "mode": {"kind": "closed", "concurrency": 1}}});
    let run = app.json(&cookie, "runs/start", plan).await["id"].as_str().unwrap().to_string();
    follow_events(&app, &cookie, &run, usize::MAX).await;
    app.json(&cookie, "guard/baselines/pin", json!({"schedule": schedule_id, "run": run})).await;

    // The endpoint slows down: Run now breaches, and a tick runs whatever else is due.
    let slow = latency_guard::sim::spawn_local(latency_guard::sim::SimConfig::fixed_ms(600, 15, 64)).await.unwrap();
    let update = json!({"id": connector_id, "input": connector(slow.base_url())});
    app.json(&cookie, "connectors/update", update).await;
    let breached = app.json(&cookie, "guard/schedules/run", json!({"id": schedule_id})).await;
    assert_eq!(breached["status"], "breached", "{breached}");
    let ticked = app.state.guard.tick().await.unwrap();
    app.state.webhooks.deliver_due().await.unwrap();
    // The app's own delivery loop may have taken the alert's message first: its delivery is counted when it ends.
    let delivered = |e: &Exposition| value(e, "latency_guard_webhook_deliveries_total", &[("outcome", "delivered")]);
    let after = common::client::until("the alert's webhook delivered", Duration::from_secs(10), || async {
        let now = scrape(&app).await;
        (delivered(&now) > delivered(&before)).then_some(now)
    })
    .await;

    let moved = |name: &str, labels: &[(&str, &str)]| value(&after, name, labels) - value(&before, name, labels);
    let evaluations = 1.0 + ticked.ran.len() as f64;
    // Runs: the baseline and one per evaluation; requests: 10 for the baseline, 5 per evaluation.
    assert_eq!(moved("latency_guard_runs_started_total", &[]), 1.0 + evaluations);
    assert_eq!(moved("latency_guard_runs_finished_total", &[("status", "completed")]), 1.0 + evaluations);
    assert_eq!(moved("latency_guard_requests_total", &[]), 10.0 + 5.0 * evaluations);
    assert_eq!(moved("latency_guard_request_errors_total", &[]), 0.0);
    assert_eq!(moved("latency_guard_guard_ticks_total", &[]), 1.0);
    assert_eq!(moved("latency_guard_guard_tick_duration_seconds_count", &[]), 1.0);
    assert_eq!(moved("latency_guard_guard_evaluations_total", &[]), evaluations);
    assert!(moved("latency_guard_guard_evaluations_total", &[("status", "breached")]) >= 1.0);
    assert!(moved("latency_guard_webhook_deliveries_total", &[("outcome", "delivered")]) >= 1.0);
    assert_eq!(value(&after, "latency_guard_guard_open_alerts", &[("severity", "critical")]), 1.0);
    assert_eq!(value(&after, "latency_guard_guard_open_alerts", &[("severity", "warn")]), 0.0, "every severity listed");

    // The schedule's last figures are its latest evaluation's own.
    let detail = app.json(&cookie, "guard/schedules/get", json!({"id": schedule_id})).await;
    let latest = &detail["evaluations"][0];
    let labels = [("schedule_id", schedule_id.as_str()), ("schedule", "Checkout p95")];
    let p95 = value(&after, "latency_guard_guard_schedule_p95_ms", &labels);
    assert_eq!(p95, latest["observedSummary"]["p95Ms"].as_f64().unwrap(), "{latest}");
    assert!(p95 > 500.0, "the slowed endpoint: {p95}");
    let status = latest["status"].as_str().unwrap();
    let with_status = [labels[0], labels[1], ("status", status)];
    assert_eq!(value(&after, "latency_guard_guard_schedule_last_status", &with_status), 1.0);
    assert_eq!(value(&after, "latency_guard_guard_schedule_error_rate", &labels), 0.0);

    // Every series the Grafana dashboard in docs/ queries is one the service writes.
    for name in dashboard_metrics() {
        let family = ["_total", "_bucket", "_count", "_sum"].iter().find_map(|s| name.strip_suffix(s)).unwrap_or(&name);
        assert!(
            after.samples.iter().any(|s| s.name == name) || after.kinds.contains_key(family),
            "docs/grafana-dashboard.json queries {name}, which /metrics does not write"
        );
    }

    // Acknowledged: the open alert leaves the gauge.
    app.json(&cookie, "guard/alerts/ack-all", json!({})).await;
    assert_eq!(value(&scrape(&app).await, "latency_guard_guard_open_alerts", &[("severity", "critical")]), 0.0);
    fast.stop();
    slow.stop();
}

/// The `latency_guard_…` names in every query of the Grafana dashboard.
fn dashboard_metrics() -> std::collections::BTreeSet<String> {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/grafana-dashboard.json")).unwrap();
    let dashboard: Value = serde_json::from_str(&text).unwrap();
    fn exprs(v: &Value, out: &mut Vec<String>) {
        match v {
            Value::Object(map) => {
                if let Some(Value::String(e)) = map.get("expr") {
                    out.push(e.clone());
                }
                map.values().for_each(|v| exprs(v, out));
            }
            Value::Array(items) => items.iter().for_each(|v| exprs(v, out)),
            _ => {}
        }
    }
    let mut all = Vec::new();
    exprs(&dashboard, &mut all);
    let names: std::collections::BTreeSet<String> = all
        .iter()
        .flat_map(|e| e.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')))
        .filter(|w| w.starts_with("latency_guard_"))
        .map(String::from)
        .collect();
    assert!(names.len() >= 10, "the dashboard's queries were read: {names:?}");
    names
}

async fn off_by_default_and_loopback_only_without_a_token(db: &TestDb) {
    let off = spawn_app_on(&db.url, |_| {}).await;
    assert_eq!(get(&off, &[]).await.0, 404, "off unless turned on");
    let local = spawn_app_on(&db.url, |s| {
        s.metrics = true;
        s.client_ip_header = Some(axum::http::HeaderName::from_static("x-forwarded-for"));
    })
    .await;
    let (status, _, body) = get(&local, &[]).await;
    assert_eq!(status, 200, "a loopback scraper: {body}");
    assert!(body.contains("latency_guard_guard_ticks_total"), "{body}");
    let (status, _, body) = get(&local, &[("x-forwarded-for", "127.0.0.1, 203.0.113.9")]).await;
    assert_eq!(status, 403, "a client the proxy names is not local: {body}");
    assert!(body.contains("metrics-token"), "says what to do: {body}");
    let (status, _, _) = get(&local, &[("x-forwarded-for", "203.0.113.9, 127.0.0.1")]).await;
    assert_eq!(status, 200, "the proxy's own entry (the last) is what counts");
    // The usual spellings of an address are read as that address; anything else is nobody's, never loopback's.
    for (entry, expected) in [
        ("127.0.0.1:5555", 200),
        ("[::1]:80", 200),
        ("for=\"[::1]:80\";proto=https", 200),
        ("203.0.113.9:4711", 403),
        ("[2001:db8::1]:4711", 403),
        ("for=203.0.113.9", 403),
        ("unknown", 403),
        ("for=_hidden", 403),
        ("127.0.0.1:port", 403),
    ] {
        let (status, _, _) = get(&local, &[("x-forwarded-for", entry)]).await;
        assert_eq!(status, expected, "{entry:?}");
    }
}

both_backends!(the_exposition_moves_with_what_the_service_does, off_by_default_and_loopback_only_without_a_token,);
