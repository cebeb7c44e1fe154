//! One workspace's slow schedules never hold another's, on SQLite and PostgreSQL: with four slots, a workspace
//! whose four schedules each take three seconds runs at most its share of them at once, and another workspace's
//! schedule, due after all of them, reaches its endpoint at once rather than after them; the in-process loop's
//! dispatch returns without waiting for long evaluations, so a schedule that falls due meanwhile starts beside them.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::common::endpoint::scripted_endpoint;
use crate::common::guard_rig::{simulator, Rig};
use crate::common::TestDb;
use latency_guard::clock::Clock;
use latency_guard::guard::model::{Cadence, EvaluationStatus, ScheduleInput};

/// A second workspace, `other`, with one schedule of one prompt on an endpoint that notes when each request came;
/// those instants.
async fn other_workspace_schedule(rig: &Rig, template: &ScheduleInput) -> Arc<Mutex<Vec<Instant>>> {
    let arrived: Arc<Mutex<Vec<Instant>>> = Arc::default();
    let noted = arrived.clone();
    let url =
        scripted_endpoint(Arc::new(move || noted.lock().unwrap().push(Instant::now())), Arc::new(String::new)).await;
    rig.schedule_elsewhere("other", &url, template, None).await;
    arrived
}

/// Four schedules of the rig's workspace on an endpoint answering in about three seconds, due first.
async fn slow_schedules(rig: &Rig) -> (latency_guard::sim::SimHandle, ScheduleInput) {
    let slow = simulator(3_000).await;
    let connector = rig.connector(&slow.base_url()).await;
    let set = rig.set(1).await;
    let mut template = None;
    for i in 0..4 {
        template = Some(rig.schedule(&format!("slow {i}"), &set, connector, Cadence::Hourly, true).await.input);
        rig.clock.advance(1);
    }
    (slow, template.unwrap())
}

async fn another_workspaces_schedule_starts_at_once_beside_slow_ones(db: &TestDb) {
    let rig = Rig::new(&db.store, 25).await;
    let (slow, template) = slow_schedules(&rig).await;
    let arrived = other_workspace_schedule(&rig, &template).await;
    let started = Instant::now();
    let tick = rig.guard.tick().await.unwrap();
    let took = started.elapsed();
    assert_eq!(tick.ran.len(), 5, "{tick:?}");
    assert!(tick.ran.iter().all(|o| o.run_id.is_some()), "each one measured its endpoint: {tick:?}");
    assert_eq!(tick.ran[1].slot_at_ms, rig.clock.now_ms(), "the other workspace's, due last, was claimed second");
    let waited = arrived.lock().unwrap()[0] - started;
    assert!(waited < Duration::from_millis(1_500), "the other workspace waited {waited:?} for slots");
    // Two of the four slow schedules at once (the share of two workspaces in four slots): two rounds of 3 s.
    assert!(took >= Duration::from_millis(5_500), "the slow workspace kept to its share: the tick took {took:?}");
    slow.stop();
}

async fn the_loop_starts_a_schedule_due_while_long_evaluations_run(db: &TestDb) {
    let rig = Rig::new(&db.store, 25).await;
    let (slow, template) = slow_schedules(&rig).await;
    let started = Instant::now();
    assert_eq!(rig.guard.dispatch().await.unwrap(), 3, "alone, a workspace leaves one slot for whoever comes next");
    assert!(started.elapsed() < Duration::from_secs(2), "dispatch does not wait for the evaluations it starts");
    // Falls due while they run: the next pass starts it beside them.
    let arrived = other_workspace_schedule(&rig, &template).await;
    assert_eq!(rig.guard.dispatch().await.unwrap(), 1);
    let deadline = Instant::now() + Duration::from_secs(20);
    while arrived.lock().unwrap().is_empty() {
        assert!(Instant::now() < deadline, "the other workspace's request never came");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let waited = arrived.lock().unwrap()[0] - started;
    assert!(waited < Duration::from_millis(2_500), "it started beside the slow ones, not after: {waited:?}");
    // Every slot frees: the fourth slow schedule runs once one ends, and all five end.
    while rig.guard.dispatch().await.unwrap() == 0 {
        assert!(Instant::now() < deadline, "the fourth slow schedule never started");
        let _ = tokio::time::timeout(Duration::from_secs(1), rig.guard.evaluation_ended()).await;
    }
    let all = rig.store.list_schedules(rig.ws).await.unwrap();
    for schedule in all {
        loop {
            let latest = rig.store.list_evaluations(rig.ws, schedule.id, 1).await.unwrap();
            if latest.first().is_some_and(|e| e.status != EvaluationStatus::Running) {
                break;
            }
            assert!(Instant::now() < deadline, "{} never ended", schedule.input.name);
            let _ = tokio::time::timeout(Duration::from_secs(1), rig.guard.evaluation_ended()).await;
        }
    }
    slow.stop();
}

both_backends!(
    another_workspaces_schedule_starts_at_once_beside_slow_ones,
    the_loop_starts_a_schedule_due_while_long_evaluations_run,
);
