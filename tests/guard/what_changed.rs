//! An alert says what changed, on SQLite and PostgreSQL, as a user meets it. The endpoint is redeployed between two
//! evaluations: a new build (the simulator's replies say `system_fingerprint` b200 instead of b100) that keeps no
//! prefix cache, so a workload whose requests share a long prefix pays its prefill on every request. The one
//! evaluation breaches two thresholds (p50 and mean) and opens one incident: one webhook message, one e-mail item,
//! one card in the feed, acknowledged at once — each naming both changes beside the figures, with the run's verdict and its slowest
//! requests.
#![cfg(feature = "ssr")]
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a failing test should panic loudly")]

use std::time::Duration;

use crate::common::guard_rig::Rig;
use crate::common::smtp::{next_message, readable, smtp_sink};
use crate::common::TestDb;
use crate::every_threshold::receiver;
use crate::webhooks::webhook_policy;
use latency_guard::clock::Clock;
use latency_guard::guard::fragments::feed;
use latency_guard::guard::model::{
    incidents, Cadence, EvaluationStatus, Metric, Notify, Op, ScheduleInput, Severity, Threshold,
};
use latency_guard::guard::notify::{Mailer, WebhookSender};
use latency_guard::guard::service::{acknowledge_alert, pin_run};
use latency_guard::model::{LengthDist, Workload};
use latency_guard::sim::{self, Delay, SimConfig, SimHandle};
use latency_guard::workload::model::WorkloadInput;

/// A build of the endpoint: 20 ms to answer plus 0.3 ms of prefill per prompt token its prefix cache did not hold
/// (`cache_blocks` 0: it holds none).
async fn build(fingerprint: &str, cache_blocks: usize) -> SimHandle {
    let config = SimConfig {
        ttft: Delay::Normal { mean: Duration::from_millis(20), sd: Duration::from_millis(1) },
        itl: Delay::Fixed(Duration::ZERO),
        tokens: 3,
        prefill_per_token: Duration::from_micros(300),
        prefix_cache_blocks: cache_blocks,
        system_fingerprint: fingerprint.into(),
        ..SimConfig::default()
    };
    sim::spawn_local(config).await.unwrap()
}

/// Twelve requests sharing a 600-token prefix (the run's own: prompt marks stay on), each with 8 tokens of its own.
fn shared_prefix() -> Workload {
    Workload::SharedPrefix {
        groups: 1,
        prefix_tokens: 600,
        suffix: LengthDist::fixed(8),
        output: LengthDist::fixed(3),
        requests: 12,
        seed: 7,
    }
}

async fn a_redeploy_that_lost_the_cache_is_one_incident_naming_the_build_and_the_cache(db: &TestDb) {
    let (_smtp, port, mut mail) = smtp_sink().await;
    let mailer = Mailer::new(&format!("smtp://127.0.0.1:{port}"), "latency-guard <guard@lg.test>").unwrap();
    let rig = Rig::with_mailer(&db.store, 25, Some(mailer)).await;
    let sender =
        WebhookSender::new(rig.store.clone(), rig.sealer.clone(), rig.clock.clone(), webhook_policy("127.0.0.1"));
    let (before, after) = (build("b100", 4_096).await, build("b200", 0).await);
    let (hook, seen) = receiver().await;

    let connector = rig.connector(&before.base_url()).await;
    let set = rig.set(2).await;
    let workload = WorkloadInput { name: "shared 600".into(), spec: shared_prefix() }.validate().unwrap();
    let workload = rig.store.create_workload(rig.ws, &workload, rig.clock.now_ms()).await.unwrap().id;
    let created = rig.schedule("checkout", &set, connector, Cadence::FifteenMinutes, true).await;
    let rule =
        |metric| Threshold { metric, op: Op::PctIncrease, value: 50.0, severity: Severity::Critical, test: None };
    let input = ScheduleInput {
        workload_id: Some(workload),
        thresholds: vec![rule(Metric::P50Ms), rule(Metric::MeanMs)],
        notify: Notify { webhook_url: Some(hook), email: Some("ops@example.com".into()), ..Notify::default() },
        ..created.input.clone()
    };
    let schedule =
        rig.store.update_schedule(rig.ws, created.id, &input.validate().unwrap(), &rig.sealer, 0).await.unwrap();

    // The first evaluation, on b100: requests after the first find the shared prefix cached. Its run is pinned.
    let first = rig.tick_against(connector, &before.base_url()).await;
    assert_eq!(first.status, EvaluationStatus::NoBaseline, "{first:?}");
    let pinned = first.run_id.unwrap();
    let records = rig.store.run_iterations(rig.ws, pinned).await.unwrap();
    let cached: u64 = records.iter().filter_map(|r| r.cached_tokens).sum();
    // The cache keeps whole 16-token blocks: all of the prefix but its last partial block.
    assert!(cached >= 11 * 576, "the prefix was cached for every request after the first: {cached}");
    let prompted: u64 = records.iter().filter_map(|r| r.tokens_in).sum();
    let share = format!("{:.0}", cached as f64 / prompted as f64 * 100.0);
    pin_run(&rig.store, rig.ws, schedule.id, pinned, rig.clock.now_ms()).await.unwrap();

    // The redeploy: b200, no cache. One evaluation breaches both thresholds.
    let second = rig.tick_against(connector, &after.base_url()).await;
    assert_eq!(second.status, EvaluationStatus::Breached, "{second:?}");
    assert_eq!(second.alerts_opened.len(), 2, "one alert per threshold: {second:?}");

    // One webhook message, with both breaches and what changed.
    assert_eq!(sender.deliver_due().await.unwrap(), 1, "one message for the evaluation");
    let message = seen.lock().unwrap().first().cloned().unwrap();
    let metrics: Vec<&str> =
        message["breaches"].as_array().unwrap().iter().map(|b| b["metric"].as_str().unwrap()).collect();
    assert_eq!(metrics, ["p50_ms", "mean_ms"], "{message}");
    let changes: Vec<&str> =
        message["changes"].as_array().unwrap().iter().map(|c| c["description"].as_str().unwrap()).collect();
    assert_eq!(changes.len(), 2, "{changes:?}");
    assert_eq!(changes[0], "system_fingerprint b100 → b200");
    assert_eq!(changes[1], format!("cached prompt share {share} % → 0 %"), "as the server's own counts say");
    assert_eq!(message["changes"][0]["what"], "answered");
    assert!(message["validity"]["headline"].as_str().is_some_and(|h| !h.is_empty()), "{message}");
    let slowest = message["slowestRequests"].as_array().unwrap();
    assert_eq!(slowest.len(), 3, "{message}");
    let run = second.run_id.unwrap();
    assert_eq!(message["slowestUrl"], format!("http://lg.test/runs/{run}#slowest"));
    let text = message["text"].as_str().unwrap();
    assert!(text.contains("(+1 more)\nWhat changed: system_fingerprint b100 → b200; cached prompt share"), "{text}");
    assert!(text.contains("\nThe run: ") && text.contains("\nSlowest requests: #"), "{text}");

    // One e-mail, one item: both figures and why.
    let email = next_message(&mut mail).await;
    let content = readable(email["content"].as_str().unwrap());
    assert!(content.contains("Subject: latency-guard: new alert (checkout)"), "{content}");
    let why = ["What changed: system_fingerprint b100 → b200; cached prompt share", "The run: ", "Slowest requests: #"];
    for needle in ["p50_ms +", "mean_ms +"].into_iter().chain(why) {
        assert!(content.contains(needle), "{needle:?} missing in:\n{content}");
    }

    // One incident in the feed, carrying why; the badge counts it once.
    assert_eq!(rig.store.open_alert_count(rig.ws).await.unwrap(), 2);
    assert_eq!(rig.store.open_incident_count(rig.ws).await.unwrap(), 1);
    let found = incidents(rig.store.list_alerts(rig.ws, 100, rig.clock.now_ms()).await.unwrap());
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].len(), 2);
    let context = found[0][0].context.as_ref().expect("the incident says why");
    assert_eq!(context.changes.len(), 2, "{context:?}");
    assert_eq!(context.slowest.len(), 3);
    assert!(context.slowest.windows(2).all(|w| w[0].total_ms >= w[1].total_ms), "slowest first: {context:?}");
    // The feed's card (as `guard/alerts/list` answers): one for the incident, listing the other breach, with why
    // drawn, and the other threshold named (the card's Mute mutes both).
    let cards = feed(rig.store.list_alerts(rig.ws, 100, rig.clock.now_ms()).await.unwrap());
    assert_eq!((cards.len(), cards[0].also.len()), (1, 1), "{cards:?}");
    let why = cards[0].why_html.as_ref().expect("the card says why").as_str();
    let other = cards[0].also[0].metric.as_str();
    assert_ne!(Some(other), cards[0].breach.as_ref().map(|b| b.metric.as_str()), "the card's other threshold");
    assert_eq!(cards[0].also_keys, [format!("{other}:pct_increase")]);
    assert!(why.contains(&format!("Also breached in this evaluation: {other} +")), "{why}");
    assert!(why.contains("What changed: system_fingerprint b100 → b200; cached prompt share"), "{why}");
    assert!(why.contains(&format!("href=\"/runs/{run}#slowest\"")), "{why}");
    // Acknowledging the card acknowledges both alerts.
    assert!(acknowledge_alert(&rig.store, rig.ws, cards[0].id, rig.clock.now_ms()).await.unwrap());
    let acknowledged = rig.store.list_alerts(rig.ws, 100, rig.clock.now_ms()).await.unwrap();
    assert!(acknowledged.iter().all(|a| a.acknowledged), "{acknowledged:?}");
    assert_eq!(rig.store.open_incident_count(rig.ws).await.unwrap(), 0);
    before.stop();
    after.stop();
}

both_backends!(a_redeploy_that_lost_the_cache_is_one_incident_naming_the_build_and_the_cache);
