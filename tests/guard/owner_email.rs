//! The owner's contact address and alert e-mail, over HTTP with a real SMTP server on loopback: a one-time link
//! is mailed to the address, following it confirms the address (once), a schedule that e-mails the owner sends a
//! breach's alert there, and clearing the address stops it. Without SMTP the request says why nothing is sent.
#![cfg(feature = "ssr")]
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a failing test should panic loudly")]

use serde_json::{json, Value};

use crate::common;
use crate::common::smtp::{next_message, smtp_sink};
use crate::common::{follow_events, spawn_app, spawn_app_on, TestDb};
use latency_guard::account::service::wallet_identity;
use latency_guard::config::SmtpSettings;
use latency_guard::sim::{spawn_local, SimConfig};

const WALLET: &str = "0x19E7E376E7C213B7E7e7e46cc70A5dD086DAff2A";

/// Follows a link without following its redirect; the `Location` it answers with.
async fn open(link: &str) -> String {
    let no_redirects = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap();
    let reply = no_redirects.get(link).send().await.unwrap();
    assert_eq!(reply.status(), 303, "{link}");
    reply.headers()["location"].to_str().unwrap().to_string()
}

#[tokio::test]
async fn a_confirmed_contact_address_gets_the_owners_alert_email() {
    let (_sink, port, mut received) = smtp_sink().await;
    let db = TestDb::sqlite().await;
    let smtp = SmtpSettings { url: format!("smtp://127.0.0.1:{port}"), from: "guard@lg.test".into() };
    let app = spawn_app_on(&db.url, |s| s.smtp = Some(smtp)).await;
    let (_, cookie) = app.session_for(&wallet_identity(WALLET)).await;
    let me = app.json(&cookie, "account/whoami", json!({})).await;
    assert!(common::null_at(&me, "/contactEmail"), "{me}");
    assert_eq!(me["emailEnabled"], json!(true));

    // Refusals name the field: not an address, a list, a wallet's own identity.
    for bad in ["not-an-address", "a@b.co, c@d.co", "0x19e7e376e7c213b7e7e7e46cc70a5dd086daff2a@wallet.local"] {
        let (status, text) = app.call("account/contact", json!({ "email": bad }), Some(&cookie)).await;
        assert_eq!(status, 400, "{bad}: {text}");
        assert!(text.contains(r#""field":"email""#), "{text}");
    }

    // The link arrives at the address; until it is followed nothing is confirmed.
    assert_eq!(
        app.json(&cookie, "account/contact", json!({"email": " owner@example.com "})).await,
        "owner@example.com"
    );
    let message = next_message(&mut received).await;
    assert_eq!(message["to"], json!(["owner@example.com"]));
    assert!(message["subject"].as_str().unwrap().contains("confirm this address"), "{message}");
    let text = message["text"].as_str().unwrap();
    let link = text.lines().find(|l| l.contains("/auth/contact/verify?token=")).expect("a link").trim().to_string();
    assert!(link.starts_with(&app.base), "{link}");
    assert!(common::null_at(&app.json(&cookie, "account/whoami", json!({})).await, "/contactEmail"));
    // The link is the proof, in any browser: it needs no session, and works once.
    assert_eq!(open(&link).await, "/settings?contact=confirmed");
    assert_eq!(app.json(&cookie, "account/whoami", json!({})).await["contactEmail"], "owner@example.com");
    assert_eq!(open(&link).await, "/settings?contact=expired");
    assert_eq!(open(&format!("{}/auth/contact/verify?token=forged", app.base)).await, "/settings?contact=expired");

    // A schedule that e-mails the owner: its breach's alert goes to the confirmed address.
    let fast = spawn_local(SimConfig::fixed_ms(5, 1, 8)).await.unwrap();
    let slow = spawn_local(SimConfig::fixed_ms(600, 15, 64)).await.unwrap();
    let endpoint = |base: String| json!({"name": "Checkout API", "baseUrl": base, "model": "sim-model"});
    let connector =
        app.json(&cookie, "connectors/create", json!({"input": endpoint(fast.base_url())})).await["id"].clone();
    let prompts: Vec<Value> = ["a", "b", "c", "d", "e"].iter().map(|p| json!({"text": p})).collect();
    let set = app
        .json(
            &cookie,
            "guard/sets/save",
            json!({"id": null, "input": {"name": "s", "prompts": prompts, "maxTokens": 8}}),
        )
        .await;
    let schedule = json!({"name": "Checkout p95", "setId": set["id"], "connectorId": connector, "cadence": "15m",
        "notify": {"emailOwner": true}, "thresholds": [{"metric": "p95_ms", "op": "pct_increase", "value": 20}]});
    let saved = app.json(&cookie, "guard/schedules/save", json!({"id": null, "input": schedule})).await;
    assert_eq!(saved["schedule"]["notify"]["emailOwner"], true, "{saved}");
    let schedule_id = saved["schedule"]["id"].clone();
    let plan = json!({"input": {"connectorId": connector, "agent": {"name": "bot", "tokenBudget": 8},
        "prompts": ["a", "b", "c", "d", "e"], "iterations": 2, "mode": {"kind": "closed", "concurrency": 1}}});
    let run = app.json(&cookie, "runs/start", plan).await["id"].as_str().unwrap().to_string();
    follow_events(&app, &cookie, &run, usize::MAX).await;
    app.json(&cookie, "guard/baselines/pin", json!({"schedule": schedule_id, "run": run})).await;
    app.json(&cookie, "connectors/update", json!({"id": connector, "input": endpoint(slow.base_url())})).await;
    let breached = app.json(&cookie, "guard/schedules/run", json!({"id": schedule_id})).await;
    assert_eq!(breached["status"], "breached", "{breached}");
    let alert = next_message(&mut received).await;
    assert_eq!(alert["to"], json!(["owner@example.com"]));
    assert_eq!(alert["subject"], "latency-guard: new alert (Checkout p95)");
    assert!(alert["text"].as_str().unwrap().contains("p95_ms +"), "{alert}");

    // Cleared: the owner is mailed no more, and a new schedule's switch says why.
    app.json(&cookie, "account/contact/clear", json!({})).await;
    assert!(common::null_at(&app.json(&cookie, "account/whoami", json!({})).await, "/contactEmail"));
    app.json(&cookie, "guard/alerts/ack-all", json!({})).await;
    let again = app.json(&cookie, "guard/schedules/run", json!({"id": schedule_id})).await;
    assert_eq!(again["status"], "breached");
    let nothing = tokio::time::timeout(std::time::Duration::from_millis(500), received.next_line()).await;
    assert!(nothing.is_err(), "no address, no mail");
    let (_, _, html) = app.get("/guard/schedules/new", Some(&cookie)).await;
    assert!(html.contains("no confirmed contact address"), "the form says why the owner gets no mail");
    fast.stop();
    slow.stop();
    db.cleanup().await;
}

#[tokio::test]
async fn without_smtp_a_contact_address_is_refused_with_the_reason() {
    let app = spawn_app().await;
    let (_, cookie) = app.session_for(&wallet_identity(WALLET)).await;
    let (status, text) = app.call("account/contact", json!({"email": "owner@example.com"}), Some(&cookie)).await;
    assert_eq!(status, 400, "{text}");
    assert!(text.contains("e-mail is off on this server"), "{text}");
    assert_eq!(app.json(&cookie, "account/whoami", json!({})).await["emailEnabled"], false);
}

/// A schedule named `name` of `app`'s workspace `cookie`, checking `base_url` daily and mailing as `notify` says;
/// its id.
async fn schedule_mailing(app: &common::TestApp, cookie: &str, base_url: &str, name: &str, notify: Value) -> Value {
    let endpoint = json!({"name": "Checkout API", "baseUrl": base_url, "model": "sim-model"});
    let connector = app.json(cookie, "connectors/create", json!({"input": endpoint})).await["id"].clone();
    let set = json!({"id": null, "input": {"name": name, "prompts": [{"text": "a"}], "maxTokens": 8}});
    let set = app.json(cookie, "guard/sets/save", set).await;
    let input = json!({"id": null, "input": {"name": name, "setId": set["id"], "connectorId": connector,
        "cadence": "daily", "notify": notify, "thresholds": [{"metric": "p95_ms", "op": "pct_increase", "value": 20}]}});
    app.json(cookie, "guard/schedules/save", input).await["schedule"]["id"].clone()
}

/// "Send test e-mail" on a schedule's page: a message now to each address its alerts go to, and what the SMTP
/// server said; a schedule that mails no one, or a server without e-mail, says so instead.
#[tokio::test]
async fn a_test_email_reaches_the_schedules_recipients_or_says_why_it_cannot() {
    let (_sink, port, mut received) = smtp_sink().await;
    let db = TestDb::sqlite().await;
    let smtp = SmtpSettings { url: format!("smtp://127.0.0.1:{port}"), from: "guard@lg.test".into() };
    let app = spawn_app_on(&db.url, |s| s.smtp = Some(smtp)).await;
    let (_, cookie) = app.session_for(&wallet_identity(WALLET)).await;
    let sim = spawn_local(SimConfig::fixed_ms(5, 1, 8)).await.unwrap();
    let mailing =
        schedule_mailing(&app, &cookie, &sim.base_url(), "Mail check", json!({"email": "ops@example.com"})).await;
    let sent = app.json(&cookie, "guard/schedules/test-email", json!({"id": mailing})).await;
    assert_eq!(sent, json!([{"to": "ops@example.com", "error": null}]));
    let message = next_message(&mut received).await;
    assert_eq!(message["to"], json!(["ops@example.com"]));
    assert_eq!(message["subject"], "latency-guard: a test message for \"Mail check\"");

    let silent = schedule_mailing(&app, &cookie, &sim.base_url(), "Quiet", json!({})).await;
    let (status, text) = app.call("guard/schedules/test-email", json!({"id": silent}), Some(&cookie)).await;
    assert_eq!(status, 400, "{text}");
    assert!(text.contains("this schedule e-mails no one"), "{text}");

    let without_mail = spawn_app().await;
    let (_, other) = without_mail.session_for(&wallet_identity(WALLET)).await;
    let notify = json!({"email": "ops@example.com"});
    let saved = schedule_mailing(&without_mail, &other, &sim.base_url(), "Mail check", notify).await;
    let (status, text) = without_mail.call("guard/schedules/test-email", json!({"id": saved}), Some(&other)).await;
    assert_eq!(status, 400, "{text}");
    assert!(text.contains("e-mail is off on this server"), "{text}");
}
