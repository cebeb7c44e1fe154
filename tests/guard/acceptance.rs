//! The acceptance rate of a scheduled run against the real llama.cpp server drafting with a draft model (the
//! xllamacpp wheel, a tiny local model), on SQLite and PostgreSQL: a connector a Spec Lab probe identified records
//! its server's metrics during the run, and the evaluation's acceptance rate is exactly what the server's own
//! counters moved by over the tick (read by the test around it), which the first evaluation records and the next
//! is compared with.
#![cfg(feature = "ssr")]
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a failing test should panic loudly")]

use crate::common::guard_rig::Rig;
use crate::common::llama::llama_server;
use crate::common::TestDb;
use latency_guard::engine::HttpClient;
use latency_guard::guard::model::{EvaluationStatus, Metric, Op, ScheduleInput, Severity, Threshold};
use latency_guard::model::{ServerKind, SpecCounters};
use latency_guard::probe::{probe, scrape, spec_evidence, SpecEvidence};

async fn counters(client: &HttpClient, target: &latency_guard::engine::RequestTarget) -> SpecCounters {
    match spec_evidence(ServerKind::LlamaCpp, &scrape(client, target).await.unwrap()) {
        SpecEvidence::Counters(counters) => counters,
        other => panic!("llama.cpp's spec counters: {other:?}"),
    }
}

async fn the_acceptance_rate_is_what_the_servers_counters_moved_by(db: &TestDb) {
    let Some(drafting) = llama_server(true).await else { return };
    let rig = Rig::new(&db.store, 25).await;
    let connector = rig.connector(&drafting.base_url).await;
    let client = HttpClient::new().unwrap();
    let target = crate::common::any_target(&drafting.base_url, None, &[]);
    let report = probe(&client, &target).await;
    assert_eq!(report.kind, Some(ServerKind::LlamaCpp), "{report:?}");
    rig.store.record_probe(rig.ws, connector, report.kind, 0).await.unwrap();

    let set = rig.set(4).await;
    let created =
        rig.schedule("drafting", &set, connector, latency_guard::guard::model::Cadence::FifteenMinutes, true).await;
    let falls = Threshold {
        metric: Metric::AcceptanceRate,
        op: Op::PctDecrease,
        value: 20.0,
        severity: Severity::Warn,
        test: None,
    };
    let input = ScheduleInput { thresholds: vec![falls], ..created.input.clone() }.validate().unwrap();
    let schedule = rig.store.update_schedule(rig.ws, created.id, &input, &rig.sealer, 0).await.unwrap();

    let before = counters(&client, &target).await;
    let first = rig.tick_against(connector, &drafting.base_url).await;
    let window = before.window(&counters(&client, &target).await).unwrap();
    assert_eq!(first.status, EvaluationStatus::NoBaseline, "{first:?}");
    assert!(window.draft_tokens > 0.0, "the server drafted during the run: {window:?}");
    let e = rig.store.list_evaluations(rig.ws, schedule.id, 1).await.unwrap().remove(0);
    let recorded = e.observed_summary.unwrap().acceptance_rate.expect("the run's acceptance rate");
    assert!((recorded - window.accepted_tokens / window.draft_tokens).abs() < 1e-12, "{recorded} vs {window:?}");

    // Pinned, the next run is compared on it: the same server at the same settings stays within 20 %.
    let run = first.run_id.unwrap();
    latency_guard::guard::service::pin_run(&rig.store, rig.ws, schedule.id, run, 0).await.unwrap();
    let second = rig.tick_against(connector, &drafting.base_url).await;
    let e = rig.store.list_evaluations(rig.ws, schedule.id, 1).await.unwrap().remove(0);
    let check = &e.decision.expect("compared").checks[0];
    assert_eq!(check.baseline, Some(recorded), "the pinned run's rate");
    assert!(check.observed.is_some(), "{check:?}");
    assert_eq!(second.status, if check.breached { EvaluationStatus::Breached } else { EvaluationStatus::Healthy });
}

both_backends!(the_acceptance_rate_is_what_the_servers_counters_moved_by);
