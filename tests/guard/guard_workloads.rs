//! A Guard schedule that sends a saved workload instead of its set's prompts, on SQLite and PostgreSQL against the
//! simulator: its runs send the workload's exact lengths one at a time, its baseline is its own (a schedule of the
//! same set and connector without the workload keeps another), it keeps the copy it took when saved, and what a
//! schedule's run could not send within an evaluation's time is refused with the field named.
#![cfg(feature = "ssr")]
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a failing test should panic loudly")]

use crate::common::guard_rig::{simulator, Rig, MINUTE};
use crate::common::TestDb;
use latency_guard::clock::Clock;
use latency_guard::guard::model::{Cadence, EvaluationStatus, Schedule, ScheduleInput};
use latency_guard::guard::service::pin_run;
use latency_guard::model::{LengthDist, RunId, ScheduleId, ThinkTime, Workload, WorkloadId};
use latency_guard::store::StoreError;
use latency_guard::workload::model::WorkloadInput;

fn synthetic(input_tokens: u32, requests: u32) -> Workload {
    let (input, output) = (LengthDist::fixed(input_tokens), LengthDist::fixed(3));
    Workload::Synthetic { input, output, requests, seed: 7 }
}

async fn save_workload(rig: &Rig, name: &str, spec: Workload) -> WorkloadId {
    let input = WorkloadInput { name: name.into(), spec }.validate().unwrap();
    rig.store.create_workload(rig.ws, &input, rig.clock.now_ms()).await.unwrap().id
}

/// `schedule`'s input sending the saved workload `workload`, under another name.
fn sending(schedule: &Schedule, name: &str, workload: Option<WorkloadId>) -> ScheduleInput {
    ScheduleInput { name: name.into(), workload_id: workload, ..schedule.input.clone() }.validate().unwrap()
}

async fn create(rig: &Rig, input: &ScheduleInput) -> Result<Schedule, StoreError> {
    let secret = latency_guard::guard::notify::new_webhook_secret();
    rig.store.create_schedule(rig.ws, input, &secret, &rig.sealer, rig.clock.now_ms()).await
}

async fn copy(rig: &Rig, schedule: ScheduleId) -> latency_guard::guard::model::ScheduleWorkload {
    rig.store.schedule_workload(rig.ws, schedule).await.unwrap().unwrap()
}

async fn last_run(rig: &Rig, schedule: ScheduleId) -> RunId {
    rig.store.list_evaluations(rig.ws, schedule, 1).await.unwrap()[0].run_id.unwrap()
}

async fn a_schedule_sends_its_workload_against_a_baseline_of_its_own(db: &TestDb) {
    let rig = Rig::new(&db.store, 25).await;
    let sim = simulator(2).await;
    let connector = rig.connector(&sim.base_url()).await;
    let set = rig.set(3).await;
    let plain = rig.schedule("prompts", &set, connector, Cadence::FifteenMinutes, true).await;
    let chat = save_workload(&rig, "chat 24/3", synthetic(24, 5)).await;
    let sends = create(&rig, &sending(&plain, "workload", Some(chat))).await.unwrap();
    assert_eq!(sends.input.workload_id, Some(chat));

    // Both run; neither has a baseline yet.
    let tick = rig.guard.tick().await.unwrap();
    assert_eq!(tick.ran.len(), 2);
    assert!(tick.ran.iter().all(|o| o.status == EvaluationStatus::NoBaseline), "{:?}", tick.ran);
    let (plain_run, workload_run) = (last_run(&rig, plain.id).await, last_run(&rig, sends.id).await);
    let run = rig.store.get_run(rig.ws, workload_run).await.unwrap();
    assert_eq!(run.plan.workload, Some(synthetic(24, 5)), "the run keeps the workload it sent");
    assert!(run.plan.prompts.is_empty() && !run.plan.stream && run.plan.temperature == 0.2);
    let rows = rig.store.run_iterations(rig.ws, workload_run).await.unwrap();
    assert_eq!(rows.len(), 5, "each of the workload's requests once");
    assert!(rows
        .iter()
        .all(|r| r.error.is_none() && r.asked_input_tokens == Some(24) && r.asked_output_tokens == Some(3)));
    // Each prompt was cut to exactly 24 tokens by the simulator's own tokenizer, and each answer reached its 3.
    let made: Vec<_> = rows.iter().map(|r| (r.made_input_tokens, r.tokens_out)).collect();
    assert!(made.iter().all(|m| *m == (Some(24), Some(3))), "{made:?}");
    assert_eq!(rig.store.run_iterations(rig.ws, plain_run).await.unwrap().len(), 3, "the set's prompts once each");

    // Each schedule pins its own run. Pinning the set's run on the workload's schedule says what differs.
    let now = rig.clock.now_ms();
    let (_, warned) = pin_run(&rig.store, rig.ws, sends.id, plain_run, now).await.unwrap();
    assert!(warned.iter().any(|w| w.contains("did not send the schedule's workload \"chat 24/3\"")), "{warned:?}");
    let (_, warnings) = pin_run(&rig.store, rig.ws, sends.id, workload_run, now).await.unwrap();
    assert!(!warnings.iter().any(|w| w.contains("workload")), "{warnings:?}");
    let current = rig.store.current_baseline(rig.ws, set.id, connector, Some(&synthetic(24, 5))).await.unwrap();
    assert_eq!(current.map(|b| b.run_id), Some(workload_run), "the later pin is in force");
    assert_eq!(rig.store.current_baseline(rig.ws, set.id, connector, None).await.unwrap(), None, "the set's has none");

    // The next tick compares the workload's run with its baseline, and the other still has none.
    rig.clock.advance(15 * MINUTE);
    let tick = rig.guard.tick().await.unwrap();
    let by = |id: ScheduleId| tick.ran.iter().find(|o| o.schedule_id == id).unwrap().status;
    assert_eq!(by(plain.id), EvaluationStatus::NoBaseline);
    assert!(matches!(by(sends.id), EvaluationStatus::Healthy | EvaluationStatus::Breached), "{:?}", tick.ran);
    let compared = &rig.store.list_evaluations(rig.ws, sends.id, 1).await.unwrap()[0];
    assert_eq!((compared.baseline_n, compared.observed_n), (Some(5), Some(5)), "{compared:?}");

    // The schedule's page says what it sends, and the cost of its mean lengths.
    let detail =
        latency_guard::guard::service::schedule_detail(&rig.store, rig.ws, sends.id, rig.clock.now_ms()).await.unwrap();
    assert_eq!(detail.workload.as_ref().map(|w| w.name.as_str()), Some("chat 24/3"));
    assert_eq!(detail.baseline.map(|b| b.run_id), Some(workload_run));
    assert_eq!(detail.earlier_baselines.len(), 1, "the first pin stays in this workload's history");
    assert_eq!(detail.cost.requests_per_day, 5.0 * 96.0);
    sim.stop();
}

async fn a_schedule_keeps_its_copy_until_saved_again(db: &TestDb) {
    let rig = Rig::new(&db.store, 25).await;
    let sim = simulator(1).await;
    let connector = rig.connector(&sim.base_url()).await;
    let set = rig.set(3).await;
    let plain = rig.schedule("prompts", &set, connector, Cadence::FifteenMinutes, false).await;
    let saved = save_workload(&rig, "short", synthetic(16, 4)).await;
    let schedule = create(&rig, &sending(&plain, "copy", Some(saved))).await.unwrap();

    // An edit of the saved workload reaches the schedule when the schedule is saved again.
    let edited = WorkloadInput { name: "short, edited".into(), spec: synthetic(16, 6) }.validate().unwrap();
    rig.store.update_workload(rig.ws, saved, &edited, rig.clock.now_ms()).await.unwrap();
    assert_eq!(
        (copy(&rig, schedule.id).await.name, copy(&rig, schedule.id).await.spec),
        ("short".to_string(), synthetic(16, 4))
    );
    let input = sending(&plain, "copy", Some(saved));
    rig.store.update_schedule(rig.ws, schedule.id, &input, &rig.sealer, rig.clock.now_ms()).await.unwrap();
    assert_eq!(
        (copy(&rig, schedule.id).await.name, copy(&rig, schedule.id).await.spec),
        ("short, edited".to_string(), synthetic(16, 6))
    );

    // Deleted, the saved workload leaves the schedule its copy: it still runs, and can still be edited.
    rig.store.delete_workload(rig.ws, saved).await.unwrap();
    let renamed = ScheduleInput { name: "copy, renamed".into(), ..input.clone() };
    rig.store.update_schedule(rig.ws, schedule.id, &renamed, &rig.sealer, rig.clock.now_ms()).await.unwrap();
    assert_eq!(copy(&rig, schedule.id).await.spec, synthetic(16, 6));
    let outcome = rig.guard.run_now(rig.ws, schedule.id).await.unwrap().unwrap();
    assert_eq!(outcome.status, EvaluationStatus::NoBaseline, "{outcome:?}");
    assert_eq!(rig.store.run_iterations(rig.ws, outcome.run_id.unwrap()).await.unwrap().len(), 6);

    // Back to the set's prompts: the copy goes.
    let prompts = ScheduleInput { workload_id: None, ..renamed.clone() };
    rig.store.update_schedule(rig.ws, schedule.id, &prompts, &rig.sealer, rig.clock.now_ms()).await.unwrap();
    assert_eq!(rig.store.schedule_workload(rig.ws, schedule.id).await.unwrap(), None);

    // A workload that is not there, or that a schedule's run could not send in time, is refused by field, and the
    // schedule is left as it was.
    let invalid = |e: StoreError| match e {
        StoreError::Invalid(v) => (v.field, v.reason),
        other => panic!("{other:?}"),
    };
    let nowhere = ScheduleInput { workload_id: Some(WorkloadId::new_random()), ..prompts.clone() };
    let (field, reason) =
        invalid(rig.store.update_schedule(rig.ws, schedule.id, &nowhere, &rig.sealer, 0).await.unwrap_err());
    assert_eq!(field, "workloadId");
    assert!(reason.contains("no saved workload"), "{reason}");
    let big = save_workload(&rig, "big", synthetic(16, 101)).await;
    let (_, reason) = invalid(create(&rig, &sending(&plain, "big", Some(big))).await.unwrap_err());
    assert!(reason.contains("sends 101 requests; a schedule's run sends at most 100"), "{reason}");
    let slow = Workload::MultiTurn {
        users: 4,
        turns: 3,
        first: LengthDist::fixed(8),
        follow_up: LengthDist::fixed(4),
        output: LengthDist::fixed(2),
        think: ThinkTime::Fixed { ms: 300_000 },
        seed: 0,
    };
    let slow = save_workload(&rig, "slow chat", slow).await;
    let (_, reason) = invalid(create(&rig, &sending(&plain, "slow", Some(slow))).await.unwrap_err());
    assert!(reason.contains("8 think times add up to 40 min"), "{reason}");
    assert_eq!(rig.store.list_schedules(rig.ws).await.unwrap().len(), 2, "nothing stored on a refusal");
    assert_eq!(rig.store.get_schedule(rig.ws, schedule.id).await.unwrap().input, prompts);
    sim.stop();
}

both_backends!(
    a_schedule_sends_its_workload_against_a_baseline_of_its_own,
    a_schedule_keeps_its_copy_until_saved_again
);
