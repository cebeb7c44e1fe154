//! Slack, Discord, Microsoft Teams and PagerDuty receivers on loopback, each checking what its service documents
//! and answering as it does (Slack `200 ok`, Discord `204`, Teams `202`, PagerDuty `202` with the `dedup_key`; a
//! message of the wrong shape gets the service's `400`, so the delivery log shows a failure). PagerDuty gets one
//! event per alert keyed by it: `trigger` on open and relapse, `resolve` on recovery and on acknowledgement, the
//! routing key added only as it is sent.
#![cfg(feature = "ssr")]
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a failing test should panic loudly")]

use crate::common::guard_rig::{simulator, Rig, MINUTE};
use crate::common::TestDb;
use crate::webhooks::webhook_policy;
use axum::http::StatusCode;
use latency_guard::clock::Clock;
use latency_guard::guard::model::{AlertPolicy, Cadence, EvaluationStatus, Notify, Receiver, ScheduleInput};
use latency_guard::guard::notify::WebhookSender;
use serde_json::Value;
use std::sync::{Arc, Mutex};

type Seen = Arc<Mutex<Vec<Value>>>;
type Check = fn(&Value) -> Result<(), String>;

const ROUTING_KEY: &str = "R0UT1NGKEY0123456789abcdefABCDEF";

/// A receiver on a free loopback port: its URL and the bodies it accepted. `check` is the service's documented
/// shape; a body that fails it is answered 400 with the reason, as the service would refuse it.
async fn service(check: Check, ok: StatusCode, reply: fn(&Value) -> String) -> (String, Seen) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://127.0.0.1:{}/hook", listener.local_addr().unwrap().port());
    let seen: Seen = Arc::default();
    let store = seen.clone();
    let app = axum::Router::new().route(
        "/hook",
        axum::routing::post(move |body: String| {
            let store = store.clone();
            async move {
                let json: Value = match serde_json::from_str(&body) {
                    Ok(json) => json,
                    Err(e) => return (StatusCode::BAD_REQUEST, format!("invalid_payload: {e}")),
                };
                match check(&json) {
                    Ok(()) => {
                        let answer = reply(&json);
                        store.lock().unwrap().push(json);
                        (ok, answer)
                    }
                    Err(why) => (StatusCode::BAD_REQUEST, why),
                }
            }
        }),
    );
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (url, seen)
}

fn text<'a>(v: &'a Value, what: &str, max: usize) -> Result<&'a str, String> {
    let s = v.as_str().ok_or(format!("{what} is not a string"))?;
    match s.chars().count() {
        0 => Err(format!("{what} is empty")),
        n if n > max => Err(format!("{what} is {n} characters, over {max}")),
        _ => Ok(s),
    }
}

/// Slack's Block Kit: `text` or `blocks`; at most 50 blocks of known types; a header's `plain_text` ≤ 150, a
/// section's text ≤ 3,000, a button's text ≤ 75 with a URL.
fn slack(body: &Value) -> Result<(), String> {
    text(&body["text"], "text", 40_000)?;
    let blocks = body["blocks"].as_array().ok_or("blocks is not an array")?;
    if blocks.len() > 50 {
        return Err("invalid_blocks: more than 50".into());
    }
    for block in blocks {
        match block["type"].as_str() {
            Some("header") if block["text"]["type"] == "plain_text" => {
                text(&block["text"]["text"], "header", 150)?;
            }
            Some("section") if block["text"]["type"] == "mrkdwn" => {
                text(&block["text"]["text"], "section", 3_000)?;
            }
            Some("context") => {
                text(&block["elements"][0]["text"], "context", 3_000)?;
            }
            Some("actions") => {
                let button = &block["elements"][0];
                (button["type"] == "button").then_some(()).ok_or("invalid_blocks: not a button")?;
                text(&button["text"]["text"], "button text", 75)?;
                text(&button["url"], "button url", 3_000)?;
            }
            other => return Err(format!("invalid_blocks: {other:?}")),
        }
    }
    Ok(())
}

/// Discord: `content` ≤ 2,000 or embeds (≤ 10: title ≤ 256, description ≤ 4,096), mentions not parsed.
fn discord(body: &Value) -> Result<(), String> {
    text(&body["content"], "content", 2_000)?;
    if body["allowed_mentions"]["parse"] != serde_json::json!([]) {
        return Err("mentions would ping".into());
    }
    for embed in body["embeds"].as_array().map(Vec::as_slice).unwrap_or_default() {
        text(&embed["title"], "embed title", 256)?;
        text(&embed["description"], "embed description", 4_096)?;
        embed["color"].as_u64().filter(|c| *c <= 0xFF_FF_FF).ok_or("color is not an RGB integer")?;
    }
    Ok(())
}

/// Teams workflows: a `message` whose attachments are Adaptive Cards of text blocks.
fn teams(body: &Value) -> Result<(), String> {
    (body["type"] == "message").then_some(()).ok_or("type is not message")?;
    let card = &body["attachments"][0];
    (card["contentType"] == "application/vnd.microsoft.card.adaptive").then_some(()).ok_or("not an Adaptive Card")?;
    (card["content"]["type"] == "AdaptiveCard").then_some(()).ok_or("content is not an AdaptiveCard")?;
    text(&card["content"]["version"], "version", 8)?;
    for block in card["content"]["body"].as_array().ok_or("card body is not an array")? {
        text(&block["text"], "TextBlock", 10_000)?;
    }
    Ok(())
}

/// PagerDuty Events API v2: a 32-character routing key, an action, a dedup key ≤ 255; a trigger's summary ≤ 1,024,
/// source, and a severity of critical, error, warning or info.
fn pagerduty(body: &Value) -> Result<(), String> {
    let key = text(&body["routing_key"], "routing_key", 32)?;
    if key.len() != 32 {
        return Err("Event object is invalid: routing_key".into());
    }
    text(&body["dedup_key"], "dedup_key", 255)?;
    match body["event_action"].as_str() {
        Some("trigger") => {
            let payload = &body["payload"];
            text(&payload["summary"], "payload.summary", 1_024)?;
            text(&payload["source"], "payload.source", 255)?;
            let severity = payload["severity"].as_str().unwrap_or_default();
            ["critical", "error", "warning", "info"]
                .contains(&severity)
                .then_some(())
                .ok_or(format!("payload.severity {severity:?}"))?;
        }
        Some("acknowledge" | "resolve") => {}
        other => return Err(format!("event_action {other:?}")),
    }
    Ok(())
}

fn pagerduty_reply(body: &Value) -> String {
    serde_json::json!({"status": "success", "message": "Event processed", "dedup_key": body["dedup_key"]}).to_string()
}

/// A schedule of `rig` sending to `receiver` at `url`, recovering after one healthy evaluation.
async fn schedule_to(
    rig: &Rig,
    set: &latency_guard::guard::model::BenchmarkSet,
    connector: latency_guard::model::ConnectorId,
    receiver: Receiver,
    url: &str,
) -> latency_guard::guard::model::Schedule {
    let created = rig.schedule_notifying("checkout", set, connector, Cadence::Hourly, true, None, None).await;
    let notify = Notify {
        webhook_url: Some(url.into()),
        receiver,
        routing_key: (receiver == Receiver::PagerDuty).then(|| ROUTING_KEY.into()),
        ..Notify::default()
    };
    let policy = AlertPolicy { recover_after: 1, ..AlertPolicy::default() };
    let input = ScheduleInput { notify, policy, ..created.input.clone() }.validate().unwrap();
    rig.store.update_schedule(rig.ws, created.id, &input, &rig.sealer, rig.clock.now_ms()).await.unwrap()
}

async fn each_chat_gets_its_own_shape_for_an_alert_and_a_test(db: &TestDb) {
    let rig = Rig::new(&db.store, 25).await;
    let (fast, slow) = (simulator(20).await, simulator(120).await);
    let connector = rig.connector(&fast.base_url()).await;
    let set = rig.set(4).await;
    let sender =
        WebhookSender::new(rig.store.clone(), rig.sealer.clone(), rig.clock.clone(), webhook_policy("127.0.0.1"));
    let kinds: [(Receiver, Check, StatusCode); 3] = [
        (Receiver::Slack, slack, StatusCode::OK),
        (Receiver::Discord, discord, StatusCode::NO_CONTENT),
        (Receiver::Teams, teams, StatusCode::ACCEPTED),
    ];
    rig.pin(&set, connector).await;
    for (receiver, check, ok) in kinds {
        let (url, seen) = service(check, ok, |_| "ok".into()).await;
        let schedule = schedule_to(&rig, &set, connector, receiver, &url).await;
        rig.repoint(connector, &slow.base_url()).await;
        let outcome = rig.guard.run_now(rig.ws, schedule.id).await.unwrap().unwrap();
        assert_eq!(outcome.status, EvaluationStatus::Breached, "{receiver:?}: {outcome:?}");
        assert_eq!(sender.deliver_due().await.unwrap(), 1, "{receiver:?}");
        let test = sender.send_test(rig.ws, &schedule).await.unwrap();
        assert!(test.delivered_at_ms.is_some(), "{receiver:?}: {test:?}");
        let seen = seen.lock().unwrap().clone();
        assert_eq!(seen.len(), 2, "{receiver:?}: the alert and the test");
        let alert = seen[0].to_string();
        assert!(alert.contains("🚨 latency-guard alert [warn] checkout"), "{receiver:?}: {alert}");
        assert!(alert.contains("p95_ms +"), "{receiver:?}: the figures: {alert}");
        assert!(alert.contains(&format!("/runs/{}", outcome.run_id.unwrap())), "{receiver:?}: a link to the report");
        assert!(seen[1].to_string().contains("latency-guard test message"), "{receiver:?}");
        rig.repoint(connector, &fast.base_url()).await;
        rig.clock.advance(MINUTE);
    }
    // A message the service refuses is a failed delivery with the service's reason, retried later.
    let (url, seen) = service(teams, StatusCode::ACCEPTED, |_| "ok".into()).await;
    let schedule = schedule_to(&rig, &set, connector, Receiver::Slack, &url).await;
    let refused = sender.send_test(rig.ws, &schedule).await.unwrap();
    assert_eq!(refused.delivered_at_ms, None);
    assert!(refused.last_error.as_deref().unwrap().starts_with("HTTP 400"), "{refused:?}");
    assert!(seen.lock().unwrap().is_empty());
    fast.stop();
    slow.stop();
}

async fn pagerduty_triggers_and_resolves_one_incident_per_alert(db: &TestDb) {
    let rig = Rig::new(&db.store, 25).await;
    let (fast, slow) = (simulator(20).await, simulator(120).await);
    let connector = rig.connector(&fast.base_url()).await;
    let set = rig.set(4).await;
    let sender =
        WebhookSender::new(rig.store.clone(), rig.sealer.clone(), rig.clock.clone(), webhook_policy("127.0.0.1"));
    let (url, seen) = service(pagerduty, StatusCode::ACCEPTED, pagerduty_reply).await;
    let schedule = schedule_to(&rig, &set, connector, Receiver::PagerDuty, &url).await;
    assert!(schedule.input.notify.routing_key_set && schedule.input.notify.routing_key.is_none(), "never read back");
    rig.pin(&set, connector).await;
    // Slow (opens), fast (recovers), slow (breaches again): trigger, resolve, trigger — one alert throughout.
    for endpoint in [&slow, &fast, &slow] {
        rig.repoint(connector, &endpoint.base_url()).await;
        rig.guard.run_now(rig.ws, schedule.id).await.unwrap().unwrap();
        rig.clock.advance(MINUTE);
    }
    let alert = rig.store.list_alerts(rig.ws, 10, rig.clock.now_ms()).await.unwrap().remove(0);
    assert!(latency_guard::guard::service::acknowledge_alert(&rig.store, rig.ws, alert.id, rig.clock.now_ms())
        .await
        .unwrap());
    assert_eq!(sender.deliver_due().await.unwrap(), 4);
    let log = rig.store.list_webhook_deliveries(rig.ws, schedule.id, 10).await.unwrap();
    for message in &log {
        let stored = rig.store.webhook_body(rig.ws, &message.id).await.unwrap();
        assert!(!stored.contains(ROUTING_KEY), "the outbox never holds the key: {stored}");
    }
    let seen = seen.lock().unwrap().clone();
    let actions: Vec<&str> = seen.iter().map(|e| e["event_action"].as_str().unwrap()).collect();
    assert_eq!(actions, ["trigger", "resolve", "trigger", "resolve"]);
    assert!(seen.iter().all(|e| e["dedup_key"] == alert.id.to_string() && e["routing_key"] == ROUTING_KEY));
    let payload = &seen[0]["payload"];
    assert_eq!((payload["severity"].as_str(), payload["component"].as_str()), (Some("warning"), Some("p95_ms")));
    assert!(payload["summary"].as_str().unwrap().starts_with("🚨 latency-guard alert [warn] checkout: p95_ms +"));
    assert!(
        !latency_guard::guard::service::acknowledge_alert(&rig.store, rig.ws, alert.id, rig.clock.now_ms())
            .await
            .unwrap(),
        "acknowledged once"
    );
    assert_eq!(rig.outbox_rows().await, 4, "no second resolve");

    // Saving without a key keeps the stored one; moving to another receiver drops it.
    let kept = ScheduleInput {
        notify: Notify { routing_key: None, ..schedule.input.notify.clone() },
        ..schedule.input.clone()
    };
    let kept = rig.store.update_schedule(rig.ws, schedule.id, &kept, &rig.sealer, rig.clock.now_ms()).await.unwrap();
    assert!(kept.input.notify.routing_key_set);
    // The stored key goes only where it was entered for: another origin must be given the key again.
    let elsewhere = ScheduleInput {
        notify: Notify { webhook_url: Some("http://127.0.0.2:9/enqueue".into()), ..kept.input.notify.clone() },
        ..kept.input.clone()
    };
    let refused = rig.store.update_schedule(rig.ws, schedule.id, &elsewhere, &rig.sealer, 0).await.unwrap_err();
    assert!(refused.to_string().contains("enter it again to send it to http://127.0.0.2:9"), "{refused}");
    let same_origin = ScheduleInput {
        notify: Notify { webhook_url: Some(format!("{url}?again=1")), ..kept.input.notify.clone() },
        ..kept.input.clone()
    };
    rig.store.update_schedule(rig.ws, schedule.id, &same_origin, &rig.sealer, 0).await.unwrap();
    let slack = ScheduleInput {
        notify: Notify { receiver: Receiver::Slack, ..kept.input.notify.clone() },
        ..kept.input.clone()
    };
    let moved = rig.store.update_schedule(rig.ws, schedule.id, &slack, &rig.sealer, rig.clock.now_ms()).await.unwrap();
    assert!(!moved.input.notify.routing_key_set);
    let back = ScheduleInput {
        notify: Notify { receiver: Receiver::PagerDuty, ..moved.input.notify.clone() },
        ..moved.input.clone()
    };
    let refused = rig.store.update_schedule(rig.ws, schedule.id, &back, &rig.sealer, 0).await.unwrap_err();
    assert!(refused.to_string().contains("routing key"), "{refused}");
    fast.stop();
    slow.stop();
}

/// The routing key as a receiver that refuses an event might echo it back: as sent, its case changed, encoded, split
/// over a line break, percent-encoded, as JSON escapes, or straddling the delivery log's 200-character cut.
fn echoed_key(spelling: usize) -> String {
    use base64::Engine as _;
    let key = ROUTING_KEY;
    match spelling % 9 {
        0 => format!("invalid routing_key {key}"),
        1 => format!("INVALID ROUTING_KEY {}", key.to_uppercase()),
        2 => format!("invalid routing_key {}", key.to_lowercase()),
        3 => format!("rejected: {}", base64::engine::general_purpose::STANDARD.encode(format!("key={key}"))),
        4 => format!("rejected: {}", hex::encode(key)),
        5 => format!("rejected: {}\n{}", &key[..16], &key[16..]),
        6 => format!("rejected: {}", key.bytes().map(|b| format!("%{b:02X}")).collect::<String>()),
        7 => format!("rejected: {}", key.chars().map(|c| format!("\\u{:04x}", c as u32)).collect::<String>()),
        _ => format!("{}{key}", "x".repeat(190)),
    }
}

async fn a_refusal_echoing_the_routing_key_in_any_spelling_leaves_it_out_of_the_log(db: &TestDb) {
    let rig = Rig::new(&db.store, 25).await;
    let fast = simulator(20).await;
    let connector = rig.connector(&fast.base_url()).await;
    let set = rig.set(4).await;
    let sender =
        WebhookSender::new(rig.store.clone(), rig.sealer.clone(), rig.clock.clone(), webhook_policy("127.0.0.1"));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://127.0.0.1:{}/enqueue", listener.local_addr().unwrap().port());
    let answered = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let count = answered.clone();
    let app = axum::Router::new().route(
        "/enqueue",
        axum::routing::post(move || {
            let n = count.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            async move { (StatusCode::BAD_REQUEST, echoed_key(n)) }
        }),
    );
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    let schedule = schedule_to(&rig, &set, connector, Receiver::PagerDuty, &url).await;
    while answered.load(std::sync::atomic::Ordering::SeqCst) < 9 {
        let refused = sender.send_test(rig.ws, &schedule).await.unwrap();
        let logged = refused.last_error.unwrap();
        assert!(logged.starts_with("HTTP 400"), "{logged}");
        let spelling = answered.load(std::sync::atomic::Ordering::SeqCst) - 1;
        assert_eq!(crate::common::echoes::surviving_echo(&logged, ROUTING_KEY), None, "spelling {spelling}: {logged}");
    }
    for delivery in rig.store.list_webhook_deliveries(rig.ws, schedule.id, 100).await.unwrap() {
        let logged = delivery.last_error.unwrap_or_default();
        assert_eq!(crate::common::echoes::surviving_echo(&logged, ROUTING_KEY), None, "stored: {logged}");
    }
    fast.stop();
}

both_backends!(
    each_chat_gets_its_own_shape_for_an_alert_and_a_test,
    pagerduty_triggers_and_resolves_one_incident_per_alert,
    a_refusal_echoing_the_routing_key_in_any_spelling_leaves_it_out_of_the_log,
);
