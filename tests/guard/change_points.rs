//! Change points through real ticks, on SQLite and PostgreSQL: a schedule with a `change_point` threshold runs
//! against a fast simulated endpoint, then a slower one; one slow evaluation does not alert, a lasting slowdown
//! does (once the new level fills about a minimum segment), says the levels before and after in the alert, and the schedule's page marks the
//! change on its history chart and lists it.
#![cfg(feature = "ssr")]
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a failing test should panic loudly")]

use crate::common::guard_rig::{simulator, Rig};
use crate::common::TestDb;
use latency_guard::clock::Clock;
use latency_guard::guard::model::{AlertPolicy, EvaluationStatus, Metric, Op, ScheduleInput, Severity, Threshold};

async fn a_lasting_slowdown_is_a_change_point_that_alerts(db: &TestDb) {
    let rig = Rig::new(&db.store, 25).await;
    // p95 near 21 ms, then near 84 ms: the simulator's normal noise, 5 % of the mean. A step of four times, so a
    // busy machine (which has added 12 ms to the fast level's p95) cannot blur the levels into each other.
    let (fast, slow) = (simulator(20).await, simulator(80).await);
    let connector = rig.connector(&fast.base_url()).await;
    let set = rig.set(4).await;
    let policy = AlertPolicy { change_min_segment: 3, ..AlertPolicy::default() };
    let created = rig.schedule_with_policy(&set, connector, policy).await;
    let change =
        Threshold { metric: Metric::P95Ms, op: Op::ChangePoint, value: 30.0, severity: Severity::Critical, test: None };
    let input = ScheduleInput { thresholds: vec![change], ..created.input.clone() }.validate().unwrap();
    let schedule =
        rig.store.update_schedule(rig.ws, created.id, &input, &rig.sealer, rig.clock.now_ms()).await.unwrap();
    rig.pin(&set, connector).await;
    let why = || async {
        let latest = rig.store.list_evaluations(rig.ws, schedule.id, 1).await.unwrap().remove(0);
        latest.decision.unwrap().checks[0].reason.clone()
    };

    for _ in 0..5 {
        let outcome = rig.tick_against(connector, &fast.base_url()).await;
        assert_eq!(outcome.status, EvaluationStatus::Healthy, "{}", why().await);
    }
    assert_eq!(why().await, "5 evaluations with p95_ms so far; a change point needs 6 (segments of 3)");
    // One slow evaluation is a blip: whichever side of a split it falls on, shuffles do as well (p near 0.5).
    let blip = rig.tick_against(connector, &slow.base_url()).await;
    assert_eq!(blip.status, EvaluationStatus::Healthy, "{}", why().await);
    // The new level lasts: a change point, found once a segment of 3 can hold the new level (an early split may
    // still hold one old point); a busy machine can blur a fast run, so give it up to five.
    let mut slow_evaluations = 1;
    let opened = loop {
        slow_evaluations += 1;
        let outcome = rig.tick_against(connector, &slow.base_url()).await;
        if outcome.status == EvaluationStatus::Breached {
            break outcome;
        }
        assert!(slow_evaluations < 5, "no alert after 5 slow evaluations: {}", why().await);
    };
    assert_eq!(opened.alerts_opened.len(), 1, "{}", why().await);
    assert!(why().await.starts_with("breached: change point "), "{}", why().await);
    let alert = rig.store.list_alerts(rig.ws, 10, rig.clock.now_ms()).await.unwrap().remove(0);
    let breach = alert.breach.unwrap();
    assert_eq!((breach.op, breach.metric), (Op::ChangePoint, Metric::P95Ms));
    assert!((19.0..50.0).contains(&breach.baseline), "the level before: {}", breach.baseline);
    assert!((79.0..120.0).contains(&breach.observed), "the level after: {}", breach.observed);
    assert!(breach.pct_change.unwrap() >= 30.0 && breach.p_value.unwrap() <= 0.05, "{breach:?}");

    // The page marks the change on the chart and lists it (p95's; the mean's too when it is significant).
    let detail =
        latency_guard::guard::service::schedule_detail(&rig.store, rig.ws, schedule.id, rig.clock.now_ms()).await;
    let detail = detail.unwrap();
    let changes = latency_guard::guard::service::history_changes(&detail).await;
    let html = latency_guard::guard::fragments::history(&detail, changes).into_string();
    assert!(html.contains(r#"class="change-point"><title>change point: "#), "{html}");
    assert!(html.contains("segments of at least 3 evaluations"), "{html}");
    assert!(html.contains("UTC: p95_ms "), "listed: {html}");
    assert!(html.contains(" evaluations before, ") && html.contains(" after)"), "{html}");
    fast.stop();
    slow.stop();
}

both_backends!(a_lasting_slowdown_is_a_change_point_that_alerts);
