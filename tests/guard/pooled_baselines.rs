//! Rolling and time-window baselines against the simulator, on SQLite and PostgreSQL: a schedule fills its pool
//! from its own healthy runs (recorded, not compared, until three), is then compared with the pooled requests
//! (the evaluation and the page say so, with n), keeps breached runs out of the pool, lets a time window forget
//! what is older than its hours, and starts the pool again when what it measures changes.
#![cfg(feature = "ssr")]
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a failing test should panic loudly")]

use crate::common::guard_rig::{simulator, Rig, MINUTE, T0};
use crate::common::TestDb;
use latency_guard::clock::Clock;
use latency_guard::guard::model::{
    AlertPolicy, BaselineSource, EvaluationStatus, EvaluationView, Pool, ReferenceFrom, ScheduleInput,
};

/// The pool an evaluation was compared with, or is filling.
fn pool_of(e: &EvaluationView) -> Option<&Pool> {
    match &e.baseline_from {
        Some(ReferenceFrom::Pooled(pool)) => Some(pool),
        _ => None,
    }
}

async fn a_rolling_baseline_fills_from_healthy_runs_and_keeps_breaches_out(db: &TestDb) {
    let rig = Rig::new(&db.store, 25).await;
    let (fast, slow) = (simulator(20).await, simulator(120).await);
    let connector = rig.connector(&fast.base_url()).await;
    let set = rig.set(4).await;
    let rolling = AlertPolicy { baseline: BaselineSource::Rolling { last: 3 }, ..AlertPolicy::default() };
    let schedule = rig.schedule_with_policy(&set, connector, rolling).await;
    assert_eq!(schedule.input.policy.baseline, BaselineSource::Rolling { last: 3 }, "stored");
    let rig = &rig;
    let latest = || async { rig.store.list_evaluations(rig.ws, schedule.id, 1).await.unwrap().remove(0) };
    let (fast_url, slow_url) = (fast.base_url(), slow.base_url());

    // Filling: recorded, not compared; each says how full the pool is.
    for pooled_before in [None, Some(1), Some(2)] {
        let outcome = rig.tick_against(connector, &fast_url).await;
        assert_eq!(outcome.status, EvaluationStatus::NoBaseline, "{outcome:?}");
        let e = latest().await;
        assert_eq!(pool_of(&e).map(|p| p.evaluations), pooled_before, "{e:?}");
        assert_eq!(e.baseline_n, None);
    }

    // Three healthy runs pooled: compared with their 12 requests.
    let compared = rig.tick_against(connector, &fast_url).await;
    assert_eq!(compared.status, EvaluationStatus::Healthy, "{compared:?}");
    let e = latest().await;
    let pool = pool_of(&e).expect("compared with the pool").clone();
    assert_eq!((pool.evaluations, pool.first_at_ms, pool.last_at_ms), (3, T0, T0 + 30 * MINUTE));
    assert_eq!((e.baseline_n, e.observed_n), (Some(12), Some(4)));
    let pooled_p95 = e.baseline_summary.unwrap().p95_ms.unwrap();
    assert!(pooled_p95 < 60.0, "the fast runs' p95: {pooled_p95}");

    // Slower: breached against the pool, an alert opens.
    let breached = rig.tick_against(connector, &slow_url).await;
    assert_eq!((breached.status, breached.alerts_opened.len()), (EvaluationStatus::Breached, 1), "{breached:?}");
    // Still slower: a breached run never joins the pool, so the level it is compared with has not moved.
    let again = rig.tick_against(connector, &slow_url).await;
    assert_eq!(again.status, EvaluationStatus::Breached, "the regression stays one: {again:?}");
    let e = latest().await;
    assert_eq!(pool_of(&e).unwrap().last_at_ms, T0 + 45 * MINUTE, "the newest healthy run, not the breach");
    assert!(e.baseline_summary.unwrap().p95_ms.unwrap() < 60.0);

    // Fast again: healthy; the next pool is the latest three healthy runs (the first one has left it).
    assert_eq!(rig.tick_against(connector, &fast_url).await.status, EvaluationStatus::Healthy);
    let detail = latency_guard::guard::service::schedule_detail(&rig.store, rig.ws, schedule.id, rig.clock.now_ms())
        .await
        .unwrap();
    let info = detail.pool.clone().expect("the page shows the pool");
    assert_eq!((info.pool.evaluations, info.n), (3, 12));
    assert_eq!((info.pool.first_at_ms, info.pool.last_at_ms), (T0 + 30 * MINUTE, T0 + 90 * MINUTE));
    let page = latency_guard::guard::fragments::baselines(&detail).into_string();
    assert!(
        page.contains("Compared with the last 3 healthy evaluations, pooled: 3 evaluations")
            && page.contains("12 successful requests"),
        "{page}"
    );
    fast.stop();
    slow.stop();
}

async fn a_time_window_forgets_older_runs_and_a_new_measurement_starts_again(db: &TestDb) {
    let rig = Rig::new(&db.store, 25).await;
    let fast = simulator(20).await;
    let connector = rig.connector(&fast.base_url()).await;
    let set = rig.set(4).await;
    let window = AlertPolicy { baseline: BaselineSource::Window { hours: 1 }, ..AlertPolicy::default() };
    let schedule = rig.schedule_with_policy(&set, connector, window).await;
    let latest = || async { rig.store.list_evaluations(rig.ws, schedule.id, 1).await.unwrap().remove(0) };
    for _ in 0..5 {
        rig.tick_against(connector, &fast.base_url()).await;
    }
    // At T0 + 75 min the last hour holds the runs of T0 + 15 … + 60: the one of T0 has left the window.
    assert_eq!(rig.tick_against(connector, &fast.base_url()).await.status, EvaluationStatus::Healthy);
    let e = latest().await;
    let pool = pool_of(&e).unwrap();
    assert_eq!((pool.evaluations, pool.first_at_ms, pool.last_at_ms), (4, T0 + 15 * MINUTE, T0 + 60 * MINUTE));
    assert_eq!(e.baseline_n, Some(16));

    // Two hours without a run: the window is empty again, so the next run is recorded, not compared.
    rig.clock.advance(120 * MINUTE);
    let quiet = rig.tick_against(connector, &fast.base_url()).await;
    assert_eq!(quiet.status, EvaluationStatus::NoBaseline, "{quiet:?}");

    // Another set measures something else: its pool starts empty whatever ran before.
    let other = rig.set(6).await;
    let input = ScheduleInput { set_id: other.id, ..schedule.input.clone() }.validate().unwrap();
    rig.store.update_schedule(rig.ws, schedule.id, &input, &rig.sealer, rig.clock.now_ms()).await.unwrap();
    let fresh = rig.tick_against(connector, &fast.base_url()).await;
    assert_eq!(fresh.status, EvaluationStatus::NoBaseline);
    assert_eq!(pool_of(&latest().await), None, "nothing measured the new set before");
    fast.stop();
}

both_backends!(
    a_rolling_baseline_fills_from_healthy_runs_and_keeps_breaches_out,
    a_time_window_forgets_older_runs_and_a_new_measurement_starts_again,
);
