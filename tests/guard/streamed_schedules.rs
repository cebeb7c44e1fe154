//! A streamed schedule against the simulator, on SQLite and PostgreSQL: its runs stream, its evaluations carry
//! TTFT, TPOT and time to first output, and a deploy that moves time to the first token while leaving total time
//! where it was breaches the TTFT threshold alone (Welch's test of the TTFTs), never the total-time one.
#![cfg(feature = "ssr")]
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a failing test should panic loudly")]

use std::time::Duration;

use crate::common::guard_rig::Rig;
use crate::common::TestDb;
use latency_guard::guard::model::{
    AlertPolicy, BaselineSource, EvaluationStatus, Metric, Op, ScheduleInput, Severity, Threshold,
};
use latency_guard::sim::{self, Delay, SimConfig, SimHandle};

/// An endpoint answering 4 tokens: the first after `ttft_ms` (± 5 %), each next `itl_ms` later.
async fn streaming_sim(ttft_ms: u64, itl_ms: u64) -> SimHandle {
    let config = SimConfig {
        ttft: Delay::Normal { mean: Duration::from_millis(ttft_ms), sd: Duration::from_millis(ttft_ms / 20 + 1) },
        itl: Delay::Fixed(Duration::from_millis(itl_ms)),
        tokens: 4,
        ..Default::default()
    };
    sim::spawn_local(config).await.unwrap()
}

fn threshold(metric: Metric) -> Threshold {
    Threshold { metric, op: Op::PctIncrease, value: 50.0, severity: Severity::Warn, test: None }
}

/// A streamed schedule of `set` on `connector` watching p95 total time and p95 TTFT, with `policy`.
async fn streamed_schedule(
    rig: &Rig,
    set: &latency_guard::guard::model::BenchmarkSet,
    connector: latency_guard::model::ConnectorId,
    policy: AlertPolicy,
) -> latency_guard::guard::model::Schedule {
    let created = rig.schedule_with_policy(set, connector, policy).await;
    let input = ScheduleInput {
        stream: true,
        thresholds: vec![threshold(Metric::P95Ms), threshold(Metric::TtftP95Ms)],
        ..created.input.clone()
    }
    .validate()
    .unwrap();
    rig.store.update_schedule(rig.ws, created.id, &input, &rig.sealer, 0).await.unwrap()
}

async fn a_slower_first_token_alerts_on_ttft_while_total_time_holds(db: &TestDb) {
    let rig = Rig::new(&db.store, 25).await;
    // 20 + 3 × 40 ≈ 140 ms in all, then 110 + 3 × 10 ≈ 140 ms: the same total, the first token 5× later.
    let (quick_start, slow_start) = (streaming_sim(20, 40).await, streaming_sim(110, 10).await);
    let connector = rig.connector(&quick_start.base_url()).await;
    let set = rig.set(6).await;
    let schedule = streamed_schedule(&rig, &set, connector, AlertPolicy::default()).await;
    assert!(schedule.input.stream, "stored");
    rig.pin_as(&set, connector, true).await;

    let healthy = rig.tick_against(connector, &quick_start.base_url()).await;
    assert_eq!(healthy.status, EvaluationStatus::Healthy, "{healthy:?}");
    let run = rig.store.get_run(rig.ws, healthy.run_id.unwrap()).await.unwrap();
    assert!(run.plan.stream, "the schedule's run streamed");
    let e = rig.store.list_evaluations(rig.ws, schedule.id, 1).await.unwrap().remove(0);
    let summary = e.observed_summary.unwrap();
    // The evaluation's TTFT is the run's own: the 95th percentile of its requests' TTFTs.
    let records = rig.store.run_iterations(rig.ws, run.id).await.unwrap();
    let mut ttfts: Vec<f64> = records.iter().filter_map(|r| r.ttft_ms).collect();
    ttfts.sort_by(f64::total_cmp);
    assert_eq!((ttfts.len(), summary.ttft_p95_ms), (6, latency_guard::stats::percentile(&ttfts, 95.0)));
    assert!(summary.tpot_p95_ms.unwrap() > 30.0 && summary.first_output_p95_ms.is_some(), "{summary:?}");

    let breached = rig.tick_against(connector, &slow_start.base_url()).await;
    assert_eq!((breached.status, breached.alerts_opened.len()), (EvaluationStatus::Breached, 1), "{breached:?}");
    let e = rig.store.list_evaluations(rig.ws, schedule.id, 1).await.unwrap().remove(0);
    let decision = e.decision.unwrap();
    assert_eq!(decision.breaches.iter().map(|b| b.metric).collect::<Vec<_>>(), [Metric::TtftP95Ms]);
    let (total, ttft) = (&decision.checks[0], &decision.checks[1]);
    assert!(!total.breached, "total time held: {}", total.reason);
    assert!(
        ttft.reason.starts_with("crossed and significant") && ttft.reason.contains("TTFT shifted +"),
        "{}",
        ttft.reason
    );
    let alert = rig.store.list_alerts(rig.ws, 10, 0).await.unwrap().remove(0);
    assert_eq!(alert.breach.unwrap().metric, Metric::TtftP95Ms);
    quick_start.stop();
    slow_start.stop();
}

/// A rolling baseline of a streamed schedule pools its runs' TTFTs too.
async fn a_pooled_baseline_of_a_streamed_schedule_compares_ttfts(db: &TestDb) {
    let rig = Rig::new(&db.store, 25).await;
    let (quick_start, slow_start) = (streaming_sim(20, 40).await, streaming_sim(110, 10).await);
    let connector = rig.connector(&quick_start.base_url()).await;
    let set = rig.set(4).await;
    let rolling = AlertPolicy { baseline: BaselineSource::Rolling { last: 3 }, ..AlertPolicy::default() };
    let schedule = streamed_schedule(&rig, &set, connector, rolling).await;
    for _ in 0..3 {
        assert_eq!(rig.tick_against(connector, &quick_start.base_url()).await.status, EvaluationStatus::NoBaseline);
    }
    let breached = rig.tick_against(connector, &slow_start.base_url()).await;
    assert_eq!(breached.status, EvaluationStatus::Breached, "{breached:?}");
    let e = rig.store.list_evaluations(rig.ws, schedule.id, 1).await.unwrap().remove(0);
    let pooled_ttft = e.baseline_summary.unwrap().ttft_p95_ms.unwrap();
    assert!(pooled_ttft < 40.0, "the pool's TTFT is the quick starts': {pooled_ttft}");
    let decision = e.decision.unwrap();
    assert_eq!(decision.breaches.iter().map(|b| b.metric).collect::<Vec<_>>(), [Metric::TtftP95Ms]);
    quick_start.stop();
    slow_start.stop();
}

both_backends!(
    a_slower_first_token_alerts_on_ttft_while_total_time_holds,
    a_pooled_baseline_of_a_streamed_schedule_compares_ttfts,
);
