//! `POST /api/public/hooks/guard-tick` over real HTTP: no key configured, no hook; a missing or wrong `apikey`
//! is a 401 and runs nothing; the right one ticks and says what ran.
#![cfg(feature = "ssr")]
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a failing test should panic loudly")]

use crate::common;

use crate::common::{client, spawn_app, spawn_app_on};
use latency_guard::config::ApiKey;
use latency_guard::guard::model::{
    BenchmarkSetInput, Cadence, Metric, Op, ScheduleInput, SetPrompt, Severity, Threshold,
};
use serde_json::Value;

const KEY: &str = "tick-key-0123456789abcdef";

async fn hook(base: &str, key: Option<&str>) -> (u16, String) {
    let mut request = client().post(format!("{base}/api/public/hooks/guard-tick"));
    if let Some(key) = key {
        request = request.header("apikey", key);
    }
    let response = request.send().await.unwrap();
    (response.status().as_u16(), response.text().await.unwrap())
}

#[tokio::test]
async fn without_a_configured_key_the_hook_does_not_exist() {
    let app = spawn_app().await;
    assert_eq!(hook(&app.base, Some(KEY)).await.0, 404);
    assert_eq!(hook(&app.base, None).await.0, 404);
}

#[tokio::test]
async fn a_missing_or_wrong_key_runs_nothing_and_the_right_one_ticks() {
    let dir = tempfile::tempdir().unwrap();
    let url = latency_guard::config::sqlite_url(&dir.path().join("app.db"));
    let app = spawn_app_on(&url, |s| {
        s.demo_simulator = true;
        s.guard_tick_api_key = Some(ApiKey::parse(KEY).unwrap());
    })
    .await;
    let store = &app.state.store;
    let now = app.state.clock.now_ms();
    let (ws, _) = store.ensure_workspace(latency_guard::store::LOCAL_OWNER, "", now).await.unwrap();
    let demo = store.list_connectors(ws.id).await.unwrap().remove(0);
    let set = BenchmarkSetInput {
        name: "set".into(),
        prompts: vec![SetPrompt { text: "hi".into() }, SetPrompt { text: "bye".into() }],
        system_prompt: None,
        max_tokens: 4,
    };
    let set = store.create_set(ws.id, &set.validate().unwrap(), now).await.unwrap();
    let input = ScheduleInput {
        name: "due".into(),
        set_id: set.id,
        connector_id: demo.id,
        enabled: true,
        cadence: Cadence::FifteenMinutes,
        notify: latency_guard::guard::model::Notify::default(),
        thresholds: vec![Threshold {
            metric: Metric::MeanMs,
            op: Op::PctIncrease,
            value: 10.0,
            severity: Severity::Warn,
            test: None,
        }],
        alpha: 0.05,
        require_significance: true,
        workload_id: None,
        stream: false,
        policy: Default::default(),
    };
    let schedule = store.create_schedule(ws.id, &input, "whsec_x", &app.state.sealer, now).await.unwrap();

    for key in [None, Some(""), Some("tick-key-0123456789abcdeX"), Some("tick-key")] {
        let (status, body) = hook(&app.base, key).await;
        assert_eq!((status, body.as_str()), (401, "missing or wrong apikey header"), "{key:?}");
    }
    assert!(store.list_evaluations(ws.id, schedule.id, 10).await.unwrap().is_empty(), "nothing ran");
    assert!(store.list_runs(ws.id).await.unwrap().is_empty());

    let (status, body) = hook(&app.base, Some(KEY)).await;
    assert_eq!(status, 200, "{body}");
    let report: Value = serde_json::from_str(&body).unwrap();
    let ran = report["ran"].as_array().unwrap();
    assert_eq!(ran.len(), 1, "{body}");
    assert_eq!(ran[0]["scheduleId"], schedule.id.to_string());
    assert_eq!((ran[0]["status"].as_str(), ran[0]["trigger"].as_str()), (Some("no_baseline"), Some("tick")));
    assert!(ran[0]["runId"].is_string());
    let (_, again) = hook(&app.base, Some(KEY)).await;
    assert_eq!(serde_json::from_str::<Value>(&again).unwrap()["ran"], Value::Array(vec![]), "not due again yet");

    // A scheduler in a loop (or a leaked key) gets 429 with Retry-After once the hook's burst is spent.
    let mut statuses = Vec::new();
    for _ in 0..6 {
        let response = client()
            .post(format!("{}/api/public/hooks/guard-tick", app.base))
            .header("apikey", KEY)
            .send()
            .await
            .unwrap();
        if response.status() == 429 {
            let wait: u64 = response.headers()["retry-after"].to_str().unwrap().parse().unwrap();
            assert!((1..=6).contains(&wait), "{wait}");
        }
        statuses.push(response.status().as_u16());
    }
    assert_eq!(statuses, [200, 200, 200, 429, 429, 429], "a burst of 5 hook ticks, then one every 6 s");
}

/// Wrong keys are no free guesses: every call counts against its client before the key is compared, on every
/// replica alike (the buckets are in the shared database), so a guesser is stopped after 10 calls — even the right
/// key then waits — while another client is not held back. On SQLite and PostgreSQL.
#[tokio::test]
async fn guessing_the_key_is_stopped_across_replicas_and_other_clients_are_not_held_back() {
    for db in [Some(common::TestDb::sqlite().await), common::TestDb::postgres().await].into_iter().flatten() {
        let configure = |s: &mut latency_guard::config::Settings| {
            s.guard_tick_api_key = Some(ApiKey::parse(KEY).unwrap());
            s.client_ip_header = Some(http::HeaderName::from_static("x-forwarded-for"));
        };
        let replicas = [spawn_app_on(&db.url, configure).await, spawn_app_on(&db.url, configure).await];
        let call = |replica: usize, client_address: &str, key: &str| {
            client()
                .post(format!("{}/api/public/hooks/guard-tick", replicas[replica].base))
                .header("apikey", key)
                .header("x-forwarded-for", client_address)
                .send()
        };
        let mut statuses = Vec::new();
        for i in 0..200 {
            statuses.push(call(i % 2, "203.0.113.9", "tick-key-wrong-guess-000000").await.unwrap().status().as_u16());
        }
        assert_eq!(statuses[..10], [401; 10], "ten guesses are answered");
        assert!(statuses[10..].iter().all(|s| *s == 429), "then every guess waits, on both replicas: {statuses:?}");
        let right = call(0, "203.0.113.9", KEY).await.unwrap();
        assert_eq!(right.status(), 429, "the guesser's right key waits too: no guess is free");
        assert!(right.headers().contains_key("retry-after"));
        assert_eq!(call(1, "203.0.113.10", KEY).await.unwrap().status(), 200, "another client ticks");
        db.cleanup().await;
    }
}
