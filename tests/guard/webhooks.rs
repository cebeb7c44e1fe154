//! Webhook delivery from the outbox to a real HTTP receiver on loopback (allow-listed): the exact body with a
//! valid Standard Webhooks signature; a receiver that is down gets the message on a later attempt; private
//! receivers not on the allow-list are refused; Discord URLs get `content`.
#![cfg(feature = "ssr")]
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a failing test should panic loudly")]

use crate::common::guard_rig::{simulator, Rig, MINUTE};
use crate::common::TestDb;
use axum::http::HeaderMap;
use base64::Engine as _;
use hmac::Mac;
use latency_guard::clock::Clock;
use latency_guard::guard::model::{AlertPolicy, Cadence, EvaluationStatus, Receiver, ScheduleInput};
use latency_guard::guard::notify::WebhookSender;
use latency_guard::guard::store::{OutboxRow, Recipient};
use latency_guard::outbound::{AddressPolicy, AllowRules, SystemLookup, Trust};
use serde_json::Value;
use std::sync::{Arc, Mutex};

type Received = Arc<Mutex<Vec<(HeaderMap, String)>>>;

/// A receiver on `port` recording each request; answers 204.
async fn receiver(listener: tokio::net::TcpListener) -> Received {
    let received: Received = Arc::default();
    let store = received.clone();
    let app = axum::Router::new().route(
        "/hook",
        axum::routing::post(move |headers: HeaderMap, body: String| {
            let store = store.clone();
            async move {
                store.lock().unwrap().push((headers, body));
                axum::http::StatusCode::NO_CONTENT
            }
        }),
    );
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    received
}

/// A receiver on a free loopback port: its `/hook` URL and what it receives.
async fn loopback_receiver() -> (String, Received) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://127.0.0.1:{}/hook", listener.local_addr().unwrap().port());
    (url, receiver(listener).await)
}

fn verify(secret: &str, id: &str, timestamp: &str, body: &str, signature: &str) -> bool {
    let engine = base64::engine::general_purpose::STANDARD;
    let key = engine.decode(secret.trim_start_matches("whsec_")).unwrap();
    let mut mac = hmac::Hmac::<sha2::Sha256>::new_from_slice(&key).unwrap();
    mac.update(format!("{id}.{timestamp}.{body}").as_bytes());
    signature == format!("v1,{}", engine.encode(mac.finalize().into_bytes()))
}

async fn a_slow_endpoint_alerts_a_receiver_that_was_down_until_a_retry(db: &TestDb) {
    let rig = Rig::new(&db.store, 25).await;
    let (fast, slow) = (simulator(20).await, simulator(120).await);
    let connector = rig.connector(&fast.base_url()).await;
    let set = rig.set(4).await;
    // The receiver's port, closed for now: the first delivery attempt is refused.
    let port = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap().local_addr().unwrap().port();
    let url = format!("http://127.0.0.1:{port}/hook");
    let schedule = rig.schedule_notifying("checkout", &set, connector, Cadence::Hourly, true, Some(&url), None).await;
    rig.pin(&set, connector).await;
    rig.repoint(connector, &slow.base_url()).await;
    let outcome = rig.guard.tick().await.unwrap().ran.remove(0);
    assert_eq!(outcome.status, EvaluationStatus::Breached, "{outcome:?}");
    let sender =
        WebhookSender::new(rig.store.clone(), rig.sealer.clone(), rig.clock.clone(), webhook_policy("127.0.0.1"));

    assert_eq!(sender.deliver_due().await.unwrap(), 0);
    let log = rig.store.list_webhook_deliveries(rig.ws, schedule.id, 10).await.unwrap();
    assert_eq!((log.len(), log[0].attempts, log[0].delivered_at_ms), (1, 1, None));
    assert!(log[0].last_error.as_deref().unwrap().contains("no response"), "{:?}", log[0].last_error);
    assert_eq!(log[0].next_attempt_at_ms, rig.clock.now_ms() + 30_000, "retried after 30 s");
    assert_eq!(sender.deliver_due().await.unwrap(), 0, "not due again yet");

    let received = receiver(tokio::net::TcpListener::bind(("127.0.0.1", port)).await.unwrap()).await;
    rig.clock.advance(30_000);
    assert_eq!(sender.deliver_due().await.unwrap(), 1);
    let log = rig.store.list_webhook_deliveries(rig.ws, schedule.id, 10).await.unwrap();
    assert_eq!((log[0].attempts, log[0].delivered_at_ms), (2, Some(rig.clock.now_ms())));
    assert_eq!(sender.deliver_due().await.unwrap(), 0, "delivered once");

    let (headers, body) = received.lock().unwrap().remove(0);
    let header = |name: &str| headers[name].to_str().unwrap().to_string();
    assert_eq!(header("content-type"), "application/json");
    assert_eq!(header("webhook-id"), log[0].id);
    assert_eq!(header("webhook-timestamp"), (rig.clock.now_ms() / 1_000).to_string());
    assert_eq!(body, rig.store.webhook_body(rig.ws, &log[0].id).await.unwrap(), "the exact stored body");
    let secret = rig.store.schedule_webhook_secret(rig.ws, schedule.id, &rig.sealer).await.unwrap();
    assert!(verify(&secret, &log[0].id, &header("webhook-timestamp"), &body, &header("webhook-signature")));
    assert!(!verify(
        &secret,
        &log[0].id,
        &header("webhook-timestamp"),
        &body.replace("p95_ms", "p50_ms"),
        &header("webhook-signature")
    ));
    let json: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(
        (json["type"].as_str(), json["scheduleName"].as_str()),
        (Some("latency_guard.guard.alert"), Some("checkout"))
    );
    assert_eq!(json["scheduleId"], schedule.id.to_string());
    assert_eq!(json["benchmarkSetId"], set.id.to_string());
    assert_eq!(json["breaches"][0]["metric"], "p95_ms");
    assert_eq!(json["breaches"][0]["pValue"].as_f64(), outcome.p_value);
    assert_eq!(json["runUrl"], format!("http://lg.test/guard/sets#set-{}", set.id), "the benchmark set in the app");
    assert_eq!(json["reportUrl"], format!("http://lg.test/runs/{}", outcome.run_id.unwrap()));
    let text = json["text"].as_str().unwrap();
    assert!(text.starts_with("🚨 latency-guard alert [warn] checkout\np95_ms +"), "{text}");

    // The same receiver, not allow-listed: refused before any request leaves.
    let strict = WebhookSender::new(rig.store.clone(), rig.sealer.clone(), rig.clock.clone(), webhook_policy(""));
    let to = Recipient { url: &url, receiver: Receiver::Webhook };
    let row = OutboxRow { schedule: schedule.id, alert: None, id: "msg_test", body: "{}" };
    rig.store.queue_webhook(rig.ws, to, row, rig.clock.now_ms()).await.unwrap();
    assert!(!strict.deliver_now(rig.ws, "msg_test").await.unwrap());
    let test_message = rig.store.list_webhook_deliveries(rig.ws, schedule.id, 10).await.unwrap().remove(0);
    assert_eq!(test_message.id, "msg_test");
    assert!(
        test_message.last_error.as_deref().unwrap().starts_with("refused: 127.0.0.1 is a loopback address"),
        "{:?}",
        test_message.last_error
    );
    assert!(received.lock().unwrap().is_empty(), "nothing reached the receiver");
    fast.stop();
    slow.stop();
}

async fn discord_urls_get_content_instead_of_text(db: &TestDb) {
    let rig = Rig::new(&db.store, 25).await;
    let (fast, slow) = (simulator(20).await, simulator(120).await);
    let connector = rig.connector(&fast.base_url()).await;
    let set = rig.set(4).await;
    let discord = "https://discord.com/api/webhooks/123/token";
    let schedule = rig.schedule_notifying("discord", &set, connector, Cadence::Hourly, true, Some(discord), None).await;
    rig.pin(&set, connector).await;
    rig.repoint(connector, &slow.base_url()).await;
    rig.clock.advance(MINUTE);
    assert_eq!(rig.guard.tick().await.unwrap().ran[0].status, EvaluationStatus::Breached);
    let message = rig.store.list_webhook_deliveries(rig.ws, schedule.id, 10).await.unwrap().remove(0);
    let body: Value = serde_json::from_str(&rig.store.webhook_body(rig.ws, &message.id).await.unwrap()).unwrap();
    assert!(body.get("text").is_none());
    assert!(body["content"].as_str().unwrap().starts_with("🚨 latency-guard alert [warn] discord\n"));
    fast.stop();
    slow.stop();
}

/// A deliverer killed while sending (kill -9 holding the lease): nobody sends the message during the lease, and
/// once it ends any deliverer sends it. Delivery is at least once; nothing is lost.
async fn a_message_leased_by_a_deliverer_that_died_is_sent_after_the_lease(db: &TestDb) {
    let rig = Rig::new(&db.store, 25).await;
    let (fast, slow) = (simulator(20).await, simulator(120).await);
    let connector = rig.connector(&fast.base_url()).await;
    let set = rig.set(4).await;
    let (url, received) = loopback_receiver().await;
    let schedule = rig.schedule_notifying("checkout", &set, connector, Cadence::Hourly, true, Some(&url), None).await;
    rig.pin(&set, connector).await;
    rig.repoint(connector, &slow.base_url()).await;
    assert_eq!(rig.guard.tick().await.unwrap().ran[0].status, EvaluationStatus::Breached);

    // The dead deliverer: it leased the message, then never recorded an attempt.
    let leased = rig.store.lease_due_webhooks(rig.clock.now_ms(), 60_000, 50).await.unwrap();
    assert_eq!(leased.len(), 1);
    let sender =
        WebhookSender::new(rig.store.clone(), rig.sealer.clone(), rig.clock.clone(), webhook_policy("127.0.0.1"));
    assert_eq!(sender.deliver_due().await.unwrap(), 0, "held by the lease");
    rig.clock.advance(60_000);
    assert_eq!(sender.deliver_due().await.unwrap(), 1, "sent once the lease ended");
    assert_eq!(received.lock().unwrap().len(), 1);
    let log = rig.store.list_webhook_deliveries(rig.ws, schedule.id, 10).await.unwrap();
    assert_eq!((log[0].attempts, log[0].delivered_at_ms), (1, Some(rig.clock.now_ms())));
    fast.stop();
    slow.stop();
}

/// Every kind of notice reaches a loopback receiver, signed, with its `type`: the alert, "cannot measure" with its
/// reason and count, and — in the one evaluation that measured again and was healthy — "measurable" and
/// "recovered" with the breach it recovers from.
async fn every_kind_of_notice_reaches_the_receiver_with_its_type(db: &TestDb) {
    let rig = Rig::new(&db.store, 25).await;
    let (fast, slow) = (simulator(20).await, simulator(120).await);
    let connector = rig.connector(&fast.base_url()).await;
    let set = rig.set(4).await;
    let (url, received) = loopback_receiver().await;
    let created = rig.schedule_notifying("checkout", &set, connector, Cadence::Hourly, true, Some(&url), None).await;
    let policy = AlertPolicy { recover_after: 1, cannot_measure_after: 1, ..AlertPolicy::default() };
    let input = ScheduleInput { policy, ..created.input.clone() }.validate().unwrap();
    let schedule =
        rig.store.update_schedule(rig.ws, created.id, &input, &rig.sealer, rig.clock.now_ms()).await.unwrap();
    rig.pin(&set, connector).await;
    for url in [slow.base_url(), "http://127.0.0.1:9/v1".to_string(), fast.base_url()] {
        rig.repoint(connector, &url).await;
        rig.guard.run_now(rig.ws, schedule.id).await.unwrap().unwrap();
        rig.clock.advance(MINUTE);
    }
    let sender =
        WebhookSender::new(rig.store.clone(), rig.sealer.clone(), rig.clock.clone(), webhook_policy("127.0.0.1"));
    assert_eq!(sender.deliver_due().await.unwrap(), 4);
    let secret = rig.store.schedule_webhook_secret(rig.ws, schedule.id, &rig.sealer).await.unwrap();
    let mut by_type = std::collections::BTreeMap::new();
    for (headers, body) in received.lock().unwrap().iter() {
        let header = |name: &str| headers[name].to_str().unwrap().to_string();
        assert!(verify(
            &secret,
            &header("webhook-id"),
            &header("webhook-timestamp"),
            body,
            &header("webhook-signature")
        ));
        let json: Value = serde_json::from_str(body).unwrap();
        by_type.insert(json["type"].as_str().unwrap().to_string(), json);
    }
    let types: Vec<&str> = by_type.keys().map(String::as_str).collect();
    assert_eq!(
        types,
        [
            "latency_guard.guard.alert",
            "latency_guard.guard.cannot_measure",
            "latency_guard.guard.measurable",
            "latency_guard.guard.recovered"
        ]
    );
    let cannot = &by_type["latency_guard.guard.cannot_measure"];
    assert_eq!((cannot["evaluations"].as_u64(), cannot["breaches"].as_array().map(Vec::len)), (Some(1), Some(0)));
    assert!(cannot["reason"].as_str().unwrap().starts_with("no request succeeded"), "{cannot}");
    assert!(cannot["text"].as_str().unwrap().starts_with("⚠️ latency-guard cannot measure [warn] checkout\n"));
    let recovered = &by_type["latency_guard.guard.recovered"];
    assert_eq!(recovered["breaches"][0]["metric"], "p95_ms");
    let (baseline, now) =
        (recovered["baseline"]["p95Ms"].as_f64().unwrap(), recovered["observed"]["p95Ms"].as_f64().unwrap());
    assert!(now < baseline * 1.5, "the figures now, within the +50 % threshold: {baseline} → {now}");
    assert!(recovered["text"]
        .as_str()
        .unwrap()
        .starts_with("✅ latency-guard recovered [warn] checkout\np95_ms healthy again"));
    fast.stop();
    slow.stop();
}

/// A receiver that takes the request and never answers: its URL.
async fn hanging_receiver() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://127.0.0.1:{}/hook", listener.local_addr().unwrap().port());
    let app = axum::Router::new().route("/hook", axum::routing::post(std::future::pending::<()>));
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    url
}

/// Writes a message for `schedule` of `workspace` to the outbox, due now.
async fn queue(
    rig: &Rig,
    workspace: latency_guard::model::WorkspaceId,
    schedule: &latency_guard::guard::model::Schedule,
) {
    queue_body(rig, workspace, schedule, "{}").await;
}

/// Writes a message with `body` for `schedule` of `workspace` to the outbox, due now.
async fn queue_body(
    rig: &Rig,
    workspace: latency_guard::model::WorkspaceId,
    schedule: &latency_guard::guard::model::Schedule,
    body: &str,
) {
    let url = schedule.input.notify.webhook_url.as_deref().unwrap();
    let id = latency_guard::guard::notify::new_message_id();
    let row = OutboxRow { schedule: schedule.id, alert: None, id: &id, body };
    let to = Recipient { url, receiver: Receiver::Webhook };
    rig.store.queue_webhook(workspace, to, row, rig.clock.now_ms()).await.unwrap();
}

/// Five messages of one workspace to receivers that never answer, then one of another workspace: its message
/// arrives at once (sent in turns, each workspace within its own share), and the pass takes about one receiver's
/// time limit, not one for each (it took 50 s).
async fn hanging_receivers_of_one_workspace_never_hold_anothers_alert(db: &TestDb) {
    let rig = Rig::new(&db.store, 25).await;
    let sim = simulator(5).await;
    let connector = rig.connector(&sim.base_url()).await;
    let set = rig.set(1).await;
    let template = rig.schedule("template", &set, connector, Cadence::Hourly, false).await.input;
    for i in 0..5 {
        let hook = hanging_receiver().await;
        let input = ScheduleInput {
            name: format!("hanging {i}"),
            notify: latency_guard::guard::model::Notify { webhook_url: Some(hook), ..Default::default() },
            ..template.clone()
        };
        let secret = latency_guard::guard::notify::new_webhook_secret();
        let schedule =
            rig.store.create_schedule(rig.ws, &input.validate().unwrap(), &secret, &rig.sealer, 0).await.unwrap();
        queue(&rig, rig.ws, &schedule).await;
    }
    rig.clock.advance(1);
    let (url, received) = loopback_receiver().await;
    let (other, theirs) = rig.schedule_elsewhere("other", &sim.base_url(), &template, Some(&url)).await;
    queue(&rig, other, &theirs).await;

    let sender =
        WebhookSender::new(rig.store.clone(), rig.sealer.clone(), rig.clock.clone(), webhook_policy("127.0.0.1"));
    let started = std::time::Instant::now();
    let pass = tokio::spawn(async move { sender.deliver_due().await });
    while received.lock().unwrap().is_empty() {
        assert!(started.elapsed() < std::time::Duration::from_secs(15), "the other workspace's message never came");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let arrived = started.elapsed();
    assert!(arrived < std::time::Duration::from_secs(3), "it waited {arrived:?} behind hanging receivers");
    assert_eq!(pass.await.unwrap().unwrap(), 1, "only the other workspace's receiver answered");
    let took = started.elapsed();
    assert!(took < std::time::Duration::from_secs(25), "five hanging receivers took {took:?}");
    let log = rig.store.list_webhook_deliveries(other, theirs.id, 10).await.unwrap();
    assert!(log[0].delivered_at_ms.is_some(), "{log:?}");
    sim.stop();
}

/// A pass holds the leases of the messages it has not sent yet: renewed before they run out, another deliverer
/// cannot take them; a lease that ran out is not taken back.
async fn a_pass_renews_the_leases_of_what_it_has_not_sent(db: &TestDb) {
    let rig = Rig::new(&db.store, 25).await;
    let sim = simulator(5).await;
    let connector = rig.connector(&sim.base_url()).await;
    let set = rig.set(1).await;
    let schedule = rig.schedule("held", &set, connector, Cadence::Hourly, false).await;
    queue(&rig, rig.ws, &schedule).await;
    let now = rig.clock.now_ms();
    let leased = rig.store.lease_due_webhooks(now, 60_000, 50).await.unwrap();
    assert_eq!(leased.len(), 1);
    let ids = vec![leased[0].id.clone()];
    assert_eq!(rig.store.renew_webhook_leases(&ids, now + 40_000, 60_000).await.unwrap(), 1);
    assert!(rig.store.lease_due_webhooks(now + 61_000, 60_000, 50).await.unwrap().is_empty(), "still held");
    assert_eq!(rig.store.lease_due_webhooks(now + 101_000, 60_000, 50).await.unwrap().len(), 1, "after it");
    assert_eq!(rig.store.renew_webhook_leases(&ids, now + 200_000, 60_000).await.unwrap(), 0, "ran out: not ours");
    sim.stop();
}

/// A receiver that answers 503 the first time it is sent `{"n":1}` and 204 to everything else, a little slowly (so
/// messages sent at once would arrive out of order): its URL and the bodies it took, in the order they came.
async fn down_once_receiver() -> (String, Arc<Mutex<Vec<String>>>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://127.0.0.1:{}/hook", listener.local_addr().unwrap().port());
    let bodies: Arc<Mutex<Vec<String>>> = Arc::default();
    let seen = bodies.clone();
    let app = axum::Router::new().route(
        "/hook",
        axum::routing::post(move |body: String| {
            let seen = seen.clone();
            async move {
                let first = {
                    let mut seen = seen.lock().unwrap();
                    let first = body == "{\"n\":1}" && !seen.contains(&body);
                    seen.push(body);
                    first
                };
                tokio::time::sleep(std::time::Duration::from_millis(15)).await;
                match first {
                    true => axum::http::StatusCode::SERVICE_UNAVAILABLE,
                    false => axum::http::StatusCode::NO_CONTENT,
                }
            }
        }),
    );
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (url, bodies)
}

/// One schedule's messages reach the receiver in the order they were written: when the oldest fails, the newer
/// wait for its retry (a resolve never overtakes its trigger), while another schedule's message goes at once;
/// two deliverers at once send a chain once, in order.
async fn a_schedules_messages_arrive_in_the_order_written_even_after_a_failure(db: &TestDb) {
    let rig = Rig::new(&db.store, 25).await;
    let sim = simulator(5).await;
    let connector = rig.connector(&sim.base_url()).await;
    let set = rig.set(1).await;
    let (url, bodies) = down_once_receiver().await;
    let ordered = rig.schedule_notifying("ordered", &set, connector, Cadence::Hourly, false, Some(&url), None).await;
    let other = rig.schedule_notifying("other", &set, connector, Cadence::Hourly, false, Some(&url), None).await;
    for i in 1..=3 {
        queue_body(&rig, rig.ws, &ordered, &format!("{{\"n\":{i}}}")).await;
    }
    rig.clock.advance(1);
    queue_body(&rig, rig.ws, &other, "{\"other\":1}").await;
    let sender =
        WebhookSender::new(rig.store.clone(), rig.sealer.clone(), rig.clock.clone(), webhook_policy("127.0.0.1"));

    assert_eq!(sender.deliver_due().await.unwrap(), 1, "the other schedule's message");
    let mut first_pass = bodies.lock().unwrap().clone();
    first_pass.sort();
    assert_eq!(first_pass, ["{\"n\":1}", "{\"other\":1}"], "the first failed; the second and third waited");
    assert_eq!(sender.deliver_due().await.unwrap(), 0, "they wait for the first one's retry");
    assert_eq!(bodies.lock().unwrap().len(), 2);

    rig.clock.advance(30_000);
    assert_eq!(sender.deliver_due().await.unwrap(), 3);
    assert_eq!(bodies.lock().unwrap()[2..], ["{\"n\":1}", "{\"n\":2}", "{\"n\":3}"]);

    for i in 4..=9 {
        queue_body(&rig, rig.ws, &ordered, &format!("{{\"n\":{i}}}")).await;
    }
    let replica =
        WebhookSender::new(rig.store.clone(), rig.sealer.clone(), rig.clock.clone(), webhook_policy("127.0.0.1"));
    let (one, two) = tokio::join!(sender.deliver_due(), replica.deliver_due());
    assert_eq!(one.unwrap() + two.unwrap(), 6, "each sent once");
    let expected: Vec<String> = (4..=9).map(|i| format!("{{\"n\":{i}}}")).collect();
    assert_eq!(bodies.lock().unwrap()[5..], expected[..], "in the order written");
    sim.stop();
}

both_backends!(
    a_schedules_messages_arrive_in_the_order_written_even_after_a_failure,
    hanging_receivers_of_one_workspace_never_hold_anothers_alert,
    a_pass_renews_the_leases_of_what_it_has_not_sent,
    every_kind_of_notice_reaches_the_receiver_with_its_type,
    a_slow_endpoint_alerts_a_receiver_that_was_down_until_a_retry,
    discord_urls_get_content_instead_of_text,
    a_message_leased_by_a_deliverer_that_died_is_sent_after_the_lease,
);

/// The webhook address policy the server builds from `webhook-allow`.
pub(crate) fn webhook_policy(allow: &str) -> AddressPolicy {
    let rules = AllowRules::parse("webhook-allow", allow).unwrap();
    AddressPolicy::new(rules, Trust::Owners(std::sync::Arc::default()), std::sync::Arc::new(SystemLookup))
}
