//! Alert e-mail to a real SMTP server on loopback (aiosmtpd): one message per recipient per tick, listing every
//! alert the tick opened for them; an alert that stays open sends nothing more; a message the SMTP server could
//! not take is retried from the outbox, like a webhook, and arrives once.
#![cfg(feature = "ssr")]
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a failing test should panic loudly")]

use crate::common::guard_rig::{simulator, Rig, MINUTE};
use crate::common::smtp::{next_message, smtp_sink, smtp_sink_on};
use crate::common::TestDb;
use latency_guard::clock::Clock;
use latency_guard::guard::model::{Cadence, EvaluationStatus};
use latency_guard::guard::notify::Mailer;

async fn one_message_per_recipient_per_tick(db: &TestDb) {
    let (_sink, port, mut received) = smtp_sink().await;
    let mailer = Mailer::new(&format!("smtp://127.0.0.1:{port}"), "latency-guard <guard@lg.test>").unwrap();
    let rig = Rig::with_mailer(&db.store, 25, Some(mailer)).await;
    let (fast, slow) = (simulator(20).await, simulator(120).await);
    let connector = rig.connector(&fast.base_url()).await;
    let set = rig.set(4).await;
    for (name, email) in
        [("Checkout", "ops@example.com"), ("Search", "ops@example.com"), ("Billing", "billing@example.com")]
    {
        rig.schedule_notifying(name, &set, connector, Cadence::FifteenMinutes, true, None, Some(email)).await;
        rig.clock.advance(1);
    }
    rig.schedule_notifying("Quiet", &set, connector, Cadence::FifteenMinutes, true, None, None).await;
    rig.pin(&set, connector).await;
    rig.repoint(connector, &slow.base_url()).await;

    let tick = rig.guard.tick().await.unwrap();
    assert!(tick.ran.iter().all(|o| o.status == EvaluationStatus::Breached), "{:?}", tick.ran);
    let mut messages = [next_message(&mut received).await, next_message(&mut received).await];
    messages.sort_by_key(|m| m["to"][0].as_str().unwrap().to_string());
    assert_eq!(messages[0]["to"], serde_json::json!(["billing@example.com"]));
    assert_eq!(messages[1]["to"], serde_json::json!(["ops@example.com"]));
    assert_eq!(messages[1]["from"], "guard@lg.test");
    let ops = messages[1]["content"].as_str().unwrap();
    assert!(ops.contains("Subject: latency-guard: 2 new alerts (Checkout, Search)"), "{ops}");
    for needle in ["[warn] Checkout", "[warn] Search", "p95_ms +", "Report: http://lg.test/runs/"] {
        assert!(ops.contains(needle), "{needle:?} missing in:\n{ops}");
    }
    let billing = messages[0]["content"].as_str().unwrap();
    assert!(
        billing.contains("Subject: latency-guard: new alert (Billing)") && !billing.contains("Checkout"),
        "{billing}"
    );

    // Still slow a tick later: the alerts are open, so no new mail.
    rig.clock.advance(15 * MINUTE);
    let again = rig.guard.tick().await.unwrap();
    assert!(again.ran.iter().all(|o| o.alerts_opened.is_empty() && o.status == EvaluationStatus::Breached));
    let nothing = tokio::time::timeout(std::time::Duration::from_millis(500), received.next_line()).await;
    assert!(nothing.is_err(), "no e-mail for alerts that stayed open");
    fast.stop();
    slow.stop();
}

async fn mail_the_smtp_server_refused_is_retried_and_arrives_once(db: &TestDb) {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let mailer = Mailer::new(&format!("smtp://127.0.0.1:{port}"), "latency-guard <guard@lg.test>").unwrap();
    let rig = Rig::with_mailer(&db.store, 25, Some(mailer)).await;
    let (fast, slow) = (simulator(20).await, simulator(120).await);
    let connector = rig.connector(&fast.base_url()).await;
    let set = rig.set(4).await;
    rig.schedule_notifying("Checkout", &set, connector, Cadence::FifteenMinutes, true, None, Some("ops@example.com"))
        .await;
    rig.pin(&set, connector).await;
    rig.repoint(connector, &slow.base_url()).await;

    // Nothing listens on the SMTP port: the alert opens, its message waits in the outbox.
    let tick = rig.guard.tick().await.unwrap();
    assert_eq!(tick.ran[0].alerts_opened.len(), 1, "{:?}", tick.ran);
    let ids = db.store.mail_for("ops@example.com").await.unwrap();
    assert_eq!(ids.len(), 1);
    let waiting = db.store.mail_state(&ids[0]).await.unwrap();
    assert_eq!((waiting.attempts, waiting.delivered_at), (1, None));
    assert_eq!(waiting.next_attempt_at, rig.clock.now_ms() + 30_000, "retried after 30 s, as webhooks are");
    assert!(waiting.last_error.unwrap().contains("SMTP"));
    let mail = rig.guard.mail().unwrap();
    assert_eq!(mail.deliver_due().await.unwrap(), 0, "not due again yet");

    // The SMTP server is back; 30 s later the message goes, once.
    let (_sink, _, mut received) = smtp_sink_on(port).await;
    rig.clock.advance(30_000);
    assert_eq!(mail.deliver_due().await.unwrap(), 1);
    let message = next_message(&mut received).await;
    assert_eq!(message["to"], serde_json::json!(["ops@example.com"]));
    assert!(message["content"].as_str().unwrap().contains("Subject: latency-guard: new alert (Checkout)"));
    let sent = db.store.mail_state(&ids[0]).await.unwrap();
    assert_eq!((sent.attempts, sent.delivered_at), (2, Some(rig.clock.now_ms())));
    rig.clock.advance(3_600_000);
    assert_eq!(mail.deliver_due().await.unwrap(), 0, "a sent message is not sent again");
    let nothing = tokio::time::timeout(std::time::Duration::from_millis(300), received.next_line()).await;
    assert!(nothing.is_err(), "exactly one copy arrived");
    fast.stop();
    slow.stop();
}

both_backends!(one_message_per_recipient_per_tick, mail_the_smtp_server_refused_is_retried_and_arrives_once);
