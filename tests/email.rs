//! Alert e-mail to a real SMTP server on loopback (aiosmtpd): one message per recipient per tick, listing every
//! alert the tick opened for them; an alert that stays open sends nothing more.
#![cfg(feature = "ssr")]
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a failing test should panic loudly")]

mod common;

use common::guard_rig::{simulator, Rig, MINUTE};
use common::TestDb;
use latency_guard::model::Cadence;
use latency_guard::notify::Mailer;
use serde_json::Value;
use std::process::Stdio;
use tokio::io::{AsyncBufReadExt, BufReader, Lines};
use tokio::process::{Child, ChildStdout};

/// aiosmtpd on a free loopback port: the process, its port, and its output (one JSON line per message).
async fn smtp_sink() -> (Child, u16, Lines<BufReader<ChildStdout>>) {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/support/smtp_sink.py");
    let mut child = tokio::process::Command::new(common::python())
        .args([script, &port.to_string()])
        .stdout(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("a Python with aiosmtpd (LG_PYTHON; scripts/setup.sh --test makes one)");
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    assert_eq!(lines.next_line().await.unwrap().as_deref(), Some("READY"), "aiosmtpd did not start");
    (child, port, lines)
}

async fn next_message(lines: &mut Lines<BufReader<ChildStdout>>) -> Value {
    let line =
        tokio::time::timeout(std::time::Duration::from_secs(10), lines.next_line()).await.unwrap().unwrap().unwrap();
    serde_json::from_str(&line).unwrap()
}

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
    assert!(tick.ran.iter().all(|o| o.status == "breached"), "{:?}", tick.ran);
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
    assert!(again.ran.iter().all(|o| o.alerts_opened.is_empty() && o.status == "breached"));
    let nothing = tokio::time::timeout(std::time::Duration::from_millis(500), received.next_line()).await;
    assert!(nothing.is_err(), "no e-mail for alerts that stayed open");
    fast.stop();
    slow.stop();
}

both_backends!(one_message_per_recipient_per_tick);
