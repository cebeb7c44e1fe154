//! Guard's tick against the simulator, on SQLite and PostgreSQL, with a fixed clock: which schedules are due,
//! the per-tick cap, `next_run_at` for each cadence, failures that advance and let the others run, Run now as
//! the same path, and every row of the alert state table (sustained, inconclusive, cannot measure, recovered).
#![cfg(feature = "ssr")]
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a failing test should panic loudly")]

use crate::common::guard_rig::{simulator, Rig, MINUTE, T0};
use crate::common::TestDb;
use latency_guard::clock::Clock;
use latency_guard::guard::model::{
    AlertKind, AlertPolicy, Cadence, EvaluationStatus, InvalidRun, Metric, ScheduleOutcome,
};
use latency_guard::model::RunStatus;

fn ran(outcomes: &[ScheduleOutcome]) -> Vec<latency_guard::model::ScheduleId> {
    outcomes.iter().map(|o| o.schedule_id).collect()
}

async fn due_paused_and_cadences(db: &TestDb) {
    let rig = Rig::new(&db.store, 25).await;
    let sim = simulator(2).await;
    let connector = rig.connector(&sim.base_url()).await;
    let set = rig.set(2).await;
    let mut schedules = Vec::new();
    for &cadence in Cadence::ALL {
        schedules.push(rig.schedule(cadence.as_str(), &set, connector, cadence, true).await);
        rig.clock.advance(1);
    }
    let paused = rig.schedule("paused", &set, connector, Cadence::FifteenMinutes, false).await;

    // Every enabled schedule is due at creation; the paused one never runs.
    let tick = rig.guard.tick().await.unwrap();
    assert_eq!(ran(&tick.ran), schedules.iter().map(|s| s.id).collect::<Vec<_>>(), "oldest due first, paused left out");
    for (schedule, outcome) in schedules.iter().zip(&tick.ran) {
        assert_eq!((outcome.status.as_str(), outcome.trigger.as_str()), ("no_baseline", "tick"), "{outcome:?}");
        assert_eq!(rig.next_run_at(schedule).await, tick.at_ms + schedule.input.cadence.period_ms());
    }
    let runs = rig.store.list_runs(rig.ws).await.unwrap();
    assert_eq!(runs.len(), 4);
    assert!(runs.iter().all(|r| r.status == RunStatus::Completed && !r.plan.stream && r.plan.temperature == 0.2));
    assert!(runs.iter().all(|r| r.total_requests == 2 && r.title.starts_with("Guard · ")), "once per prompt");
    assert_eq!(rig.next_run_at(&paused).await, T0 + 4, "a paused schedule is not advanced either");

    // Nothing is due a minute later; at +15 min the 15m schedule; at +60 min the 15m and hourly ones.
    rig.clock.advance(MINUTE);
    assert!(rig.guard.tick().await.unwrap().ran.is_empty());
    rig.clock.advance(14 * MINUTE);
    assert_eq!(ran(&rig.guard.tick().await.unwrap().ran), [schedules[0].id]);
    rig.clock.advance(45 * MINUTE);
    assert_eq!(ran(&rig.guard.tick().await.unwrap().ran), [schedules[0].id, schedules[1].id]);
    let evaluations = rig.store.list_evaluations(rig.ws, schedules[0].id, 10).await.unwrap();
    assert_eq!(evaluations.len(), 3);
    assert!(evaluations.iter().all(|e| e.status == EvaluationStatus::NoBaseline && e.observed_n == Some(2)));

    // Resumed, the paused schedule is due at once (it was due while paused).
    rig.store.set_schedule_enabled(rig.ws, paused.id, true, rig.clock.now_ms()).await.unwrap();
    assert_eq!(ran(&rig.guard.tick().await.unwrap().ran), [paused.id]);
    sim.stop();
}

async fn at_most_the_cap_per_tick_oldest_first(db: &TestDb) {
    let rig = Rig::new(&db.store, 25).await;
    let sim = simulator(1).await;
    let connector = rig.connector(&sim.base_url()).await;
    let set = rig.set(1).await;
    let mut schedules = Vec::new();
    for i in 0..30 {
        schedules.push(rig.schedule(&format!("s{i:02}"), &set, connector, Cadence::Hourly, true).await);
        rig.clock.advance(1);
    }
    let first = rig.guard.tick().await.unwrap();
    assert_eq!(ran(&first.ran), schedules[..25].iter().map(|s| s.id).collect::<Vec<_>>());
    let second = rig.guard.tick().await.unwrap();
    assert_eq!(ran(&second.ran), schedules[25..].iter().map(|s| s.id).collect::<Vec<_>>());
    assert!(rig.guard.tick().await.unwrap().ran.is_empty());
    sim.stop();
}

async fn a_failing_schedule_advances_and_the_others_still_run(db: &TestDb) {
    let rig = Rig::new(&db.store, 25).await;
    let sim = simulator(1).await;
    let good = rig.connector(&sim.base_url()).await;
    let gone = rig.connector(&sim.base_url()).await;
    let refused = rig.connector("http://127.0.0.1:9/v1").await;
    let set = rig.set(2).await;
    let deleted = rig.schedule("deleted connector", &set, gone, Cadence::Hourly, true).await;
    rig.clock.advance(1);
    let down = rig.schedule("endpoint down", &set, refused, Cadence::Hourly, true).await;
    rig.clock.advance(1);
    let fine = rig.schedule("fine", &set, good, Cadence::Hourly, true).await;
    rig.store.delete_connector(rig.ws, gone).await.unwrap();

    let tick = rig.guard.tick().await.unwrap();
    assert_eq!(ran(&tick.ran), [deleted.id, down.id, fine.id]);
    assert_eq!(tick.ran[0].status, EvaluationStatus::Failed);
    assert!(tick.ran[0].error.as_deref().unwrap().contains("connector was deleted"), "{:?}", tick.ran[0].error);
    assert_eq!(tick.ran[1].status, EvaluationStatus::Inconclusive, "a run was made, but nothing got through");
    assert!(tick.ran[1].error.as_deref().unwrap().starts_with("no request succeeded"), "{:?}", tick.ran[1].error);
    assert!(tick.ran[1].run_id.is_some(), "the run is kept for its report");
    assert_eq!(tick.ran[2].status, EvaluationStatus::NoBaseline);
    for (s, status) in [(&deleted, EvaluationStatus::Failed), (&down, EvaluationStatus::Inconclusive)] {
        let after = rig.store.get_schedule(rig.ws, s.id).await.unwrap();
        assert!(after.input.enabled, "a failure does not pause the schedule");
        assert_eq!(after.next_run_at_ms, tick.at_ms + Cadence::Hourly.period_ms());
        assert_eq!(after.last_status, Some(status));
        assert!(after.last_error.is_some(), "the failure shows on the schedule");
    }
    let evaluation = rig.store.list_evaluations(rig.ws, down.id, 1).await.unwrap().remove(0);
    assert!(matches!(evaluation.invalid, Some(InvalidRun::Unreachable { .. })), "{:?}", evaluation.invalid);
    sim.stop();
}

async fn run_now_is_the_same_path_for_one_schedule(db: &TestDb) {
    let rig = Rig::new(&db.store, 25).await;
    let sim = simulator(1).await;
    let connector = rig.connector(&sim.base_url()).await;
    let set = rig.set(2).await;
    let paused = rig.schedule("paused", &set, connector, Cadence::Daily, false).await;
    rig.clock.advance(5 * MINUTE);
    let outcome = rig.guard.run_now(rig.ws, paused.id).await.unwrap().unwrap();
    assert_eq!(
        (outcome.trigger.as_str(), outcome.status.as_str(), outcome.slot_at_ms),
        ("run_now", "no_baseline", T0 + 5 * MINUTE)
    );
    assert_eq!(rig.next_run_at(&paused).await, T0 + 5 * MINUTE + Cadence::Daily.period_ms());
    let evaluation = &rig.store.list_evaluations(rig.ws, paused.id, 1).await.unwrap()[0];
    assert_eq!((evaluation.trigger.as_str(), evaluation.run_id), ("run_now", outcome.run_id));
    assert!(rig.guard.run_now(rig.ws, paused.id).await.unwrap().is_none(), "the same instant runs once");
    let (other, _) = rig.store.ensure_workspace("someone-else", "Else", T0).await.unwrap();
    assert!(rig.guard.run_now(other.id, paused.id).await.is_err(), "another workspace cannot run it");
    sim.stop();
}

async fn every_row_of_the_alert_state_table(db: &TestDb) {
    let rig = Rig::new(&db.store, 25).await;
    let (fast, slow) = (simulator(20).await, simulator(120).await);
    let connector = rig.connector(&fast.base_url()).await;
    let set = rig.set(4).await;
    let schedule = rig.schedule("checkout", &set, connector, Cadence::FifteenMinutes, true).await;
    rig.pin(&set, connector).await;
    assert_eq!(rig.next_run_at(&schedule).await, T0, "due at once");
    let count = || async { rig.store.open_alert_count(rig.ws).await.unwrap() };

    // Healthy against its own baseline: no alert.
    let healthy = rig.guard.tick().await.unwrap();
    assert_eq!(
        (healthy.ran[0].status.as_str(), count().await, rig.outbox_rows().await),
        ("healthy", 0, 0),
        "{:?}",
        healthy.ran[0]
    );

    // none → open: the endpoint got slower; one alert, one webhook in the outbox.
    rig.repoint(connector, &slow.base_url()).await;
    rig.clock.advance(15 * MINUTE);
    let breached = rig.guard.tick().await.unwrap().ran.remove(0);
    assert_eq!(breached.status, EvaluationStatus::Breached, "{breached:?}");
    assert_eq!((breached.alerts_opened.len(), breached.alerts_updated.len()), (1, 0));
    assert!(breached.p_value.unwrap() < 0.05);
    assert_eq!((count().await, rig.outbox_rows().await), (1, 1));
    let alert = rig.store.list_alerts(rig.ws, 10, rig.clock.now_ms()).await.unwrap().remove(0);
    let breach = alert.breach.as_ref().unwrap();
    assert_eq!((alert.acknowledged, alert.breach_count, breach.metric), (false, 1, Metric::P95Ms));
    assert!(breach.pct_change.unwrap() > 50.0 && breach.p_value == breached.p_value);

    // open → the same threshold breaches again: no new row, observed updated, no new webhook.
    rig.clock.advance(15 * MINUTE);
    let again = rig.guard.tick().await.unwrap().ran.remove(0);
    assert_eq!(
        (again.status.as_str(), again.alerts_opened.len(), again.alerts_updated.clone()),
        ("breached", 0, vec![alert.id])
    );
    let updated = rig.store.list_alerts(rig.ws, 10, rig.clock.now_ms()).await.unwrap();
    assert_eq!(updated.len(), 1);
    assert_eq!((updated[0].breach_count, updated[0].updated_at_ms), (2, T0 + 30 * MINUTE));
    assert_eq!((count().await, rig.outbox_rows().await), (1, 1));

    // open → a healthy tick: still open, no automatic acknowledgement; the feed knows since when it is healthy.
    rig.repoint(connector, &fast.base_url()).await;
    rig.clock.advance(15 * MINUTE);
    assert_eq!(rig.guard.tick().await.unwrap().ran[0].status, EvaluationStatus::Healthy);
    let still = rig.store.list_alerts(rig.ws, 10, rig.clock.now_ms()).await.unwrap().remove(0);
    assert_eq!((still.acknowledged, still.healthy_since_ms), (false, Some(T0 + 45 * MINUTE)));
    assert_eq!(count().await, 1);

    // open → acknowledge one: acknowledged, the badge drops; a later breach opens a new alert (and webhook).
    assert!(rig.store.acknowledge_alert(rig.ws, alert.id, rig.clock.now_ms()).await.unwrap());
    assert!(!rig.store.acknowledge_alert(rig.ws, alert.id, rig.clock.now_ms()).await.unwrap(), "once");
    assert_eq!(count().await, 0);
    rig.repoint(connector, &slow.base_url()).await;
    rig.clock.advance(15 * MINUTE);
    let reopened = rig.guard.tick().await.unwrap().ran.remove(0);
    assert_eq!(reopened.alerts_opened.len(), 1);
    assert_eq!((count().await, rig.outbox_rows().await), (1, 2));

    // open → Ack all.
    let second = rig.schedule("second", &set, connector, Cadence::FifteenMinutes, true).await;
    assert_eq!(rig.guard.run_now(rig.ws, second.id).await.unwrap().unwrap().alerts_opened.len(), 1);
    assert_eq!(count().await, 2);
    assert_eq!(rig.store.acknowledge_all_alerts(rig.ws, rig.clock.now_ms()).await.unwrap(), 2);
    assert_eq!(count().await, 0);
    let feed = rig.store.list_alerts(rig.ws, 10, rig.clock.now_ms()).await.unwrap();
    assert_eq!(feed.len(), 3);
    assert!(feed.iter().all(|a| a.acknowledged && a.acknowledged_at_ms.is_some()));
    fast.stop();
    slow.stop();
}

/// The rows the alert policy adds: a breach waits until it is sustained (2 of the last 3 conclusive evaluations),
/// an unreachable endpoint is inconclusive (skipped, never healthy), 2 such in a row open one "cannot measure"
/// alert and measuring again is announced, 2 healthy evaluations send a recovered notice (the alert stays open),
/// and a recovered alert breached again is announced again.
async fn sustained_inconclusive_cannot_measure_and_recovered_rows(db: &TestDb) {
    let rig = Rig::new(&db.store, 25).await;
    let (fast, slow) = (simulator(20).await, simulator(120).await);
    let connector = rig.connector(&fast.base_url()).await;
    let set = rig.set(4).await;
    let policy = AlertPolicy {
        sustain_breaches: 2,
        sustain_of: 3,
        recover_after: 2,
        cannot_measure_after: 2,
        ..AlertPolicy::default()
    };
    let schedule = rig.schedule_with_policy(&set, connector, policy).await;
    assert_eq!(schedule.input.policy, policy, "the policy is stored");
    rig.pin(&set, connector).await;
    let rig = &rig;
    let tick = |url: String| async move { rig.tick_against(connector, &url).await };
    let (fast_url, slow_url, down_url) = (fast.base_url(), slow.base_url(), "http://127.0.0.1:9/v1".to_string());
    let open = || async { rig.store.open_alert_count(rig.ws).await.unwrap() };
    let latest = || async { rig.store.list_evaluations(rig.ws, schedule.id, 1).await.unwrap().remove(0) };

    assert_eq!(tick(fast_url.clone()).await.status, EvaluationStatus::Healthy);
    // Breached once: pending, said on the evaluation; no alert, nothing sent.
    let first = tick(slow_url.clone()).await;
    assert_eq!((first.status, first.alerts_opened.len()), (EvaluationStatus::Breached, 0));
    let pending = latest().await.pending;
    assert_eq!((pending.len(), pending[0].breaches, pending[0].of, pending[0].needed), (1, 1, 2, 2), "{pending:?}");
    assert_eq!((open().await, rig.outbox_rows().await), (0, 0));

    // Unreachable: inconclusive, not a breach and not healthy; skipped by the count.
    let down = tick(down_url.clone()).await;
    assert_eq!((down.status, down.alerts_opened.len()), (EvaluationStatus::Inconclusive, 0));
    let second = tick(slow_url.clone()).await;
    assert_eq!(second.alerts_opened.len(), 1, "2 breaches in the last 3 conclusive evaluations: {second:?}");
    assert_eq!((open().await, rig.outbox_rows().await), (1, 1));

    // Two unreachable in a row: one "cannot measure" alert, announced once.
    tick(down_url.clone()).await;
    assert_eq!((open().await, rig.outbox_rows().await), (1, 1), "one in a row is not yet an alert");
    tick(down_url.clone()).await;
    assert_eq!((open().await, rig.outbox_rows().await), (2, 2));
    let feed = rig.store.list_alerts(rig.ws, 10, rig.clock.now_ms()).await.unwrap();
    let cannot = feed.iter().find(|a| a.kind == AlertKind::CannotMeasure).unwrap();
    let why = cannot.cannot_measure.as_ref().unwrap();
    assert!(why.reason.starts_with("no request succeeded") && why.evaluations == 2, "{why:?}");
    assert!(cannot.breach.is_none() && cannot.baseline.is_none());

    // Measured again: announced; one healthy evaluation is not yet a recovery.
    let back = tick(fast_url.clone()).await;
    assert_eq!((back.status, back.alerts_recovered.len()), (EvaluationStatus::Healthy, 0));
    assert_eq!((open().await, rig.outbox_rows().await), (2, 3), "the measuring-again notice");
    // Two healthy in a row: recovered, notice sent, still open until acknowledged.
    let recovered = tick(fast_url.clone()).await;
    assert_eq!(recovered.alerts_recovered.len(), 1, "{recovered:?}");
    assert_eq!((open().await, rig.outbox_rows().await), (2, 4));
    let breach_alert = |feed: Vec<latency_guard::guard::model::AlertView>| {
        feed.into_iter().find(|a| a.kind == AlertKind::Breach).unwrap()
    };
    assert!(breach_alert(rig.store.list_alerts(rig.ws, 10, rig.clock.now_ms()).await.unwrap())
        .recovered_at_ms
        .is_some());
    assert_eq!(tick(fast_url.clone()).await.alerts_recovered.len(), 0, "recovered once");

    // Breached again after recovering: the same alert, announced again.
    let relapse = tick(slow_url.clone()).await;
    assert_eq!((relapse.alerts_opened.len(), relapse.alerts_updated.len()), (0, 1));
    assert_eq!((open().await, rig.outbox_rows().await), (2, 5));
    assert!(breach_alert(rig.store.list_alerts(rig.ws, 10, rig.clock.now_ms()).await.unwrap())
        .recovered_at_ms
        .is_none());
    fast.stop();
    slow.stop();
}

/// The muted rows: while a threshold is muted its alert opens in the feed, marked, and nothing is sent; breached
/// again after the mute, it is announced then. A whole-schedule mute holds back "cannot measure" too, and
/// unmuted, a schedule still failing announces it.
async fn muted_alerts_open_quietly_and_are_told_after_the_mute(db: &TestDb) {
    let rig = Rig::new(&db.store, 25).await;
    let (fast, slow) = (simulator(20).await, simulator(120).await);
    let connector = rig.connector(&fast.base_url()).await;
    let set = rig.set(4).await;
    let policy = AlertPolicy { cannot_measure_after: 1, ..AlertPolicy::default() };
    let schedule = rig.schedule_with_policy(&set, connector, policy).await;
    rig.pin(&set, connector).await;
    let p95 = "p95_ms:pct_increase";
    let hour = 60 * MINUTE;
    let until = rig.clock.now_ms() + hour;
    rig.store.mute(rig.ws, schedule.id, Some(p95), until, rig.clock.now_ms()).await.unwrap();
    let rig = &rig;
    let tick = |url: String| async move { rig.tick_against(connector, &url).await };
    let feed = || async { rig.store.list_alerts(rig.ws, 10, rig.clock.now_ms()).await.unwrap() };

    let opened = tick(slow.base_url()).await;
    assert_eq!(opened.alerts_opened.len(), 1, "{opened:?}");
    assert_eq!(rig.outbox_rows().await, 0, "muted: nothing sent");
    let alert = feed().await.remove(0);
    assert_eq!((alert.announced, alert.muted_until_ms), (false, Some(until)));
    assert_eq!(tick(slow.base_url()).await.alerts_updated, [alert.id]);
    assert_eq!(rig.outbox_rows().await, 0, "still muted");
    rig.clock.advance(hour);
    assert!(feed().await[0].muted_until_ms.is_none(), "the mute is over");
    tick(slow.base_url()).await;
    assert_eq!(rig.outbox_rows().await, 1, "breached after the mute: told now");
    assert!(feed().await[0].announced);

    // The whole schedule muted: the endpoint goes down, "cannot measure" opens quietly; unmuted, it is told.
    rig.store.mute(rig.ws, schedule.id, None, rig.clock.now_ms() + hour, rig.clock.now_ms()).await.unwrap();
    let down = "http://127.0.0.1:9/v1".to_string();
    assert_eq!(tick(down.clone()).await.status, EvaluationStatus::Inconclusive);
    let cannot = || async { feed().await.into_iter().find(|a| a.kind == AlertKind::CannotMeasure).unwrap() };
    assert_eq!((cannot().await.announced, rig.outbox_rows().await), (false, 1));
    assert!(rig.store.unmute(rig.ws, schedule.id, None).await.unwrap());
    tick(down).await;
    assert_eq!((cannot().await.announced, rig.outbox_rows().await), (true, 2));
    fast.stop();
    slow.stop();
}

/// A process that stops (kill -9) between claiming a slot and recording its end leaves the evaluation running:
/// once it is older than the longest an evaluation can take, the next tick marks it failed and says why; the
/// schedule itself was advanced by the claim and runs at its next slot.
async fn an_evaluation_abandoned_by_a_stopped_process_is_marked_failed(db: &TestDb) {
    let rig = Rig::new(&db.store, 25).await;
    let sim = simulator(2).await;
    let connector = rig.connector(&sim.base_url()).await;
    let set = rig.set(1).await;
    let schedule = rig.schedule("daily", &set, connector, Cadence::Daily, true).await;
    let claims = rig.store.claim_due_schedules(rig.clock.now_ms(), 25, "a-process-that-died").await.unwrap();
    assert_eq!(claims.len(), 1);
    let status = |e: &[latency_guard::guard::model::EvaluationView]| (e[0].status, e[0].error.clone());

    rig.clock.advance(60 * MINUTE);
    assert!(rig.guard.tick().await.unwrap().ran.is_empty(), "the claim advanced the schedule");
    let left = rig.store.list_evaluations(rig.ws, schedule.id, 10).await.unwrap();
    assert_eq!(status(&left), (EvaluationStatus::Running, None), "an hour is not proof that it died");

    rig.clock.advance(latency_guard::guard::service::MAX_EVALUATION_MS);
    rig.guard.tick().await.unwrap();
    let closed = rig.store.list_evaluations(rig.ws, schedule.id, 10).await.unwrap();
    assert_eq!(closed.len(), 1);
    assert_eq!(closed[0].status, EvaluationStatus::Failed);
    assert!(closed[0].error.as_deref().unwrap().contains("the server stopped during this evaluation"));
    sim.stop();
}

both_backends!(
    an_evaluation_abandoned_by_a_stopped_process_is_marked_failed,
    due_paused_and_cadences,
    at_most_the_cap_per_tick_oldest_first,
    a_failing_schedule_advances_and_the_others_still_run,
    run_now_is_the_same_path_for_one_schedule,
    every_row_of_the_alert_state_table,
    sustained_inconclusive_cannot_measure_and_recovered_rows,
    muted_alerts_open_quietly_and_are_told_after_the_mute,
);
