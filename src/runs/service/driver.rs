//! The one load driver. Every mode is "send session k at its scheduled instant, when a slot is free": a closed
//! loop has no schedule and `concurrency` slots; an open loop has a constant, Poisson or gamma schedule and a cap.
//! A session is one job, or a conversation's turns: the first sent on the schedule, each later one after its
//! predecessor answered and its user's think time passed, all in the one slot. The intended send instant travels
//! with each job, so lag behind the schedule is measured, not hidden.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{mpsc, Semaphore};
use tokio::task::JoinSet;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::arrivals::{Due, Schedule};
use crate::model::{Job, LoadMode, LoadShape, Measurement, Session};

/// A finished request.
#[derive(Debug, Clone)]
pub struct Finished<R> {
    /// Which request.
    pub job: Job,
    /// What was measured.
    pub measurement: Measurement,
    /// What the executor says of what it sent (the row's prompt and asked lengths).
    pub sent: R,
}

/// Resolves at `deadline`; never without one.
async fn until(deadline: Option<Instant>) {
    match deadline {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

fn slots(mode: LoadMode) -> usize {
    match mode {
        LoadMode::Closed { concurrency } => concurrency as usize,
        LoadMode::Open { max_concurrency, .. } => max_concurrency as usize,
    }
}

/// How a run's sessions are paced.
#[derive(Debug, Clone)]
pub struct Pacing {
    /// Closed or open loop.
    pub mode: LoadMode,
    /// The run's time limit, from the first measured send.
    pub limit: Option<Duration>,
    /// Fixes a random schedule, so a run's arrival pattern can be reproduced.
    pub seed: u64,
    /// A trace's instants, one a session in order, replacing an open loop's rate (its cap still holds).
    pub replay: Option<Arc<[Duration]>>,
    /// How the load changes: a ramp (its sends warm-ups unless counted) or an open loop's rate in steps.
    pub shape: Option<LoadShape>,
    /// Wait for a send's instant to the tens of microseconds (on the operating system's timer) rather than to the
    /// millisecond (tokio's). Runs wait precisely; tests on tokio's paused clock cannot.
    pub precise: bool,
}

/// Resolves at `at`. Tokio's timer fires on whole milliseconds, up to one late: a send on it would lag its
/// schedule by half a millisecond on average. A precise wait sleeps on tokio's timer until the last two
/// milliseconds and the rest on the operating system's, on a blocking thread (one at a time: sends are awaited in
/// order).
async fn wait_until(at: Instant, precise: bool) {
    if !precise {
        return tokio::time::sleep_until(at).await;
    }
    if let Some(coarse) = at.checked_sub(PRECISE_MARGIN) {
        tokio::time::sleep_until(coarse).await;
    }
    let left = at.saturating_duration_since(Instant::now());
    if !left.is_zero() {
        let _ = tokio::task::spawn_blocking(move || std::thread::sleep(left)).await;
    }
}

/// What a precise wait leaves to the operating system's timer.
const PRECISE_MARGIN: Duration = Duration::from_millis(2);

/// Sends every session's jobs through `execute(job, intended_send)` and reports each result on `results`
/// (bounded: a slow consumer slows the run rather than growing memory). A session's later turn waits for
/// `think(job)` after its predecessor's answer; a failed turn ends its session (its conversation cannot go on as
/// planned), and the turns it leaves are not sent. Stops early on `cancel`, dropping requests in flight. With a
/// `limit`, no job due at or after that long past the instant the first measured (non-warm-up) job was due is
/// sent; the jobs in flight then finish. "Due" is the schedule's instant, in a closed loop the instant a slot came
/// free, or for a later turn the end of its think time; each send's lag behind it is measured by `execute` and kept
/// as the schedule lag.
pub async fn drive<F, Fut, R, T>(
    sessions: impl Iterator<Item = Session>,
    pacing: Pacing,
    cancel: CancellationToken,
    results: mpsc::Sender<Finished<R>>,
    think: T,
    execute: F,
) where
    F: Fn(Job, Instant) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = (Measurement, R)> + Send + 'static,
    R: Send + 'static,
    T: Fn(Job) -> Duration + Send + Sync + 'static,
{
    let Pacing { mode, limit, seed, replay, shape, precise } = pacing;
    let (execute, think) = (Arc::new(execute), Arc::new(think));
    let start = Instant::now();
    let (slots, ramping) = slots_of(mode, shape.as_ref(), start);
    let warm_up_until = shape.as_ref().and_then(LoadShape::warm_up_seconds).map(|s| start + Duration::from_secs_f64(s));
    let mut schedule = replay.map_or_else(|| Schedule::new(mode, seed, shape), Schedule::replay);
    let mut in_flight = JoinSet::new();
    let mut deadline: Option<Instant> = None;
    for mut session in sessions {
        let planned = match schedule.next_offset() {
            Due::Now => None,
            Due::At(offset) => Some(start + offset),
            Due::Over => break,
        };
        if let Some(at) = planned {
            tokio::select! {
                () = wait_until(at, precise) => {}
                () = cancel.cancelled() => break,
                () = until(deadline) => break,
            }
        }
        let permit = tokio::select! {
            permit = Arc::clone(&slots).acquire_owned() => match permit {
                Ok(permit) => permit,
                Err(_) => break,
            },
            () = cancel.cancelled() => break,
            () = until(deadline) => break,
        };
        // The limit is counted between the instants sends were due, on one clock reading: the first measured job's
        // own instant starts it, and a job due at or after the limit is not sent even when its slot was free.
        let intended = planned.unwrap_or_else(Instant::now);
        if deadline.is_some_and(|limit| intended >= limit) {
            break;
        }
        // Due during an uncounted ramp: a warm-up, like the plan's own.
        if warm_up_until.is_some_and(|end| intended < end) {
            session.first.warmup = true;
        }
        if !session.first.warmup && deadline.is_none() {
            deadline = limit.map(|limit| intended + limit);
        }
        let (execute, think, results) = (Arc::clone(&execute), Arc::clone(&think), results.clone());
        in_flight.spawn(async move {
            let mut permit = Some(permit);
            let mut due = intended;
            for turn in 0..session.turns {
                let job = session.turn(turn);
                if turn > 0 {
                    due = Instant::now() + think(job);
                    if deadline.is_some_and(|limit| due >= limit) {
                        break;
                    }
                    tokio::time::sleep_until(due).await;
                }
                let (mut measurement, sent) = execute(job, due).await;
                // The actual send: the intended instant plus how late it went out.
                let sent_at =
                    due.saturating_duration_since(start).as_micros() as u64 + measurement.timeline.schedule_lag_us;
                measurement.timeline.sent_offset_us = Some(sent_at);
                let failed = measurement.error.is_some();
                if turn + 1 == session.turns || failed {
                    // The slot is free before the last result is handed on, as it always was for a single job.
                    permit = None;
                }
                // A closed receiver means the run is being torn down; the result has nowhere to go.
                let _ = results.send(Finished { job, measurement, sent }).await;
                if failed {
                    break;
                }
            }
            drop(permit);
        });
        while in_flight.try_join_next().is_some() {}
    }
    tokio::select! {
        () = async { while in_flight.join_next().await.is_some() {} } => {}
        () = cancel.cancelled() => in_flight.abort_all(),
    }
    while in_flight.join_next().await.is_some() {}
    if let Some(ramping) = ramping {
        ramping.abort();
    }
}

/// The slots of `mode`: a closed loop ramping up starts with the ramp's first load and gains slots as the ramp
/// climbs (by a task that is returned, to be stopped with the run).
fn slots_of(
    mode: LoadMode,
    shape: Option<&LoadShape>,
    start: Instant,
) -> (Arc<Semaphore>, Option<tokio::task::JoinHandle<()>>) {
    let (LoadMode::Closed { concurrency }, Some(ramp @ LoadShape::Ramp { .. })) = (mode, shape) else {
        return (Arc::new(Semaphore::new(slots(mode))), None);
    };
    let mut granted = ramp_slots(ramp, concurrency, Duration::ZERO);
    let slots = Arc::new(Semaphore::new(granted as usize));
    let ramp = ramp.clone();
    let climbing = Arc::clone(&slots);
    let task = tokio::spawn(async move {
        while granted < concurrency {
            // Checked each tick: fine enough for any ramp of whole requests, and cheap.
            tokio::time::sleep(RAMP_TICK).await;
            let now = ramp_slots(&ramp, concurrency, start.elapsed());
            if now > granted {
                climbing.add_permits((now - granted) as usize);
                granted = now;
            }
        }
    });
    (slots, Some(task))
}

/// The slots a closed loop of `concurrency` ramping up by `ramp` has `t` into the run.
fn ramp_slots(ramp: &LoadShape, concurrency: u32, t: Duration) -> u32 {
    let load = ramp.load_at(f64::from(concurrency), t.as_secs_f64()).unwrap_or(f64::from(concurrency));
    (load.floor() as u32).clamp(1, concurrency)
}

/// How often a closed loop's ramp adds the slots it has reached.
const RAMP_TICK: Duration = Duration::from_millis(10);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Timeline;
    use std::sync::atomic::{AtomicUsize, Ordering};

    fn jobs(n: u64) -> impl Iterator<Item = Session> {
        (0..n).map(|seq| alone(Job { seq, prompt_index: 0, iteration: seq as u32, warmup: false }))
    }

    fn alone(first: Job) -> Session {
        Session { first, turns: 1 }
    }

    fn pace(mode: LoadMode, limit: Option<Duration>) -> Pacing {
        Pacing { mode, limit, seed: 1, replay: None, shape: None, precise: false }
    }

    fn no_think(_: Job) -> Duration {
        Duration::ZERO
    }

    fn measurement(lag: Duration) -> (Measurement, ()) {
        let measured = Measurement {
            status: Some(200),
            timeline: Timeline { schedule_lag_us: lag.as_micros() as u64, ..Timeline::default() },
            ..Measurement::blank()
        };
        (measured, ())
    }

    #[tokio::test(start_paused = true)]
    async fn a_closed_loop_never_exceeds_its_concurrency_and_runs_every_job() {
        let (tx, mut rx) = mpsc::channel(8);
        let running = Arc::new(AtomicUsize::new(0));
        let peak = Arc::new(AtomicUsize::new(0));
        let (r, p) = (Arc::clone(&running), Arc::clone(&peak));
        let driver = tokio::spawn(drive(
            jobs(20),
            pace(LoadMode::Closed { concurrency: 3 }, None),
            CancellationToken::new(),
            tx,
            no_think,
            move |_, _| {
                let (r, p) = (Arc::clone(&r), Arc::clone(&p));
                async move {
                    let now = r.fetch_add(1, Ordering::SeqCst) + 1;
                    p.fetch_max(now, Ordering::SeqCst);
                    tokio::time::sleep(Duration::from_millis(10)).await;
                    r.fetch_sub(1, Ordering::SeqCst);
                    measurement(Duration::ZERO)
                }
            },
        ));
        let mut seen = Vec::new();
        while let Some(f) = rx.recv().await {
            seen.push(f.job.seq);
        }
        driver.await.unwrap();
        seen.sort_unstable();
        assert_eq!(seen, (0..20).collect::<Vec<_>>());
        assert_eq!(peak.load(Ordering::SeqCst), 3);
    }

    #[tokio::test(start_paused = true)]
    async fn an_open_loop_sends_on_schedule_and_records_lag_when_the_cap_holds_it_back() {
        let (tx, mut rx) = mpsc::channel(64);
        let start = Instant::now();
        let mode = LoadMode::Open { rate_per_second: 100.0, poisson: false, max_concurrency: 1, burstiness: None };
        // Each request takes 25 ms but one is scheduled every 10 ms with one slot: sends fall behind.
        tokio::spawn(drive(
            jobs(5),
            pace(mode, None),
            CancellationToken::new(),
            tx,
            no_think,
            move |_, intended| async move {
                let lag = Instant::now() - intended;
                tokio::time::sleep(Duration::from_millis(25)).await;
                measurement(lag)
            },
        ));
        let mut lags = Vec::new();
        while let Some(f) = rx.recv().await {
            lags.push((f.job.seq, f.measurement.timeline.schedule_lag_us / 1000));
        }
        lags.sort_unstable();
        assert_eq!(lags, vec![(0, 0), (1, 15), (2, 30), (3, 45), (4, 60)]);
        assert_eq!((Instant::now() - start).as_millis(), 125);
    }

    /// 2 warm-ups then up to 1,000 measured jobs of 10 ms, 2 in flight, limited to 95 ms from the first measured
    /// send: the warm-ups (20 ms in all) do not count; 10 rounds of 2 go out (at 0, 10, …, 90 ms after it), and
    /// those in flight when the limit passes finish.
    #[tokio::test(start_paused = true)]
    async fn a_time_limit_stops_sending_counted_from_the_first_measured_send() {
        let (tx, mut rx) = mpsc::channel(64);
        let start = Instant::now();
        let warmups = (0..4).map(|seq| alone(Job { seq, prompt_index: 0, iteration: 0, warmup: true }));
        let measured = (4..1_004).map(|seq| alone(Job { seq, prompt_index: 0, iteration: seq as u32, warmup: false }));
        let pacing = pace(LoadMode::Closed { concurrency: 2 }, Some(Duration::from_millis(95)));
        let driver = tokio::spawn(drive(
            warmups.chain(measured),
            pacing,
            CancellationToken::new(),
            tx,
            no_think,
            |_, _| async {
                tokio::time::sleep(Duration::from_millis(10)).await;
                measurement(Duration::ZERO)
            },
        ));
        let mut finished = Vec::new();
        while let Some(f) = rx.recv().await {
            finished.push(f.job);
        }
        driver.await.unwrap();
        assert_eq!(finished.iter().filter(|j| j.warmup).count(), 4, "every warm-up, before the limit starts");
        assert_eq!(finished.iter().filter(|j| !j.warmup).count(), 20, "sends at 0, 10, …, 90 ms; none at 100 ms");
        assert_eq!((Instant::now() - start).as_millis(), 20 + 100, "the last two, sent at 90 ms, finished");
    }

    /// An open loop at 100/s limited to 50 ms: jobs are due at 0, 10, …, 40 ms; the one due exactly at 50 ms is not
    /// sent although a slot is free for it.
    #[tokio::test(start_paused = true)]
    async fn an_open_loop_sends_nothing_due_at_or_after_the_limit() {
        let (tx, mut rx) = mpsc::channel(64);
        let mode = LoadMode::Open { rate_per_second: 100.0, poisson: false, max_concurrency: 8, burstiness: None };
        let limit = Some(Duration::from_millis(50));
        let sent = Arc::new(std::sync::Mutex::new(Vec::new()));
        let seen = Arc::clone(&sent);
        let start = Instant::now();
        let driver = tokio::spawn(drive(
            jobs(1_000),
            pace(mode, limit),
            CancellationToken::new(),
            tx,
            no_think,
            move |_, due| {
                seen.lock().unwrap().push((due - start).as_millis());
                async { measurement(Duration::ZERO) }
            },
        ));
        while rx.recv().await.is_some() {}
        driver.await.unwrap();
        assert_eq!(*sent.lock().unwrap(), vec![0, 10, 20, 30, 40]);
    }

    #[tokio::test(start_paused = true)]
    async fn cancelling_stops_sending_and_drops_requests_in_flight() {
        let (tx, mut rx) = mpsc::channel(64);
        let cancel = CancellationToken::new();
        let stop = cancel.clone();
        let pacing = pace(LoadMode::Closed { concurrency: 2 }, None);
        let driver = tokio::spawn(drive(jobs(1_000), pacing, cancel, tx, no_think, |_, _| async {
            tokio::time::sleep(Duration::from_millis(10)).await;
            measurement(Duration::ZERO)
        }));
        tokio::time::sleep(Duration::from_millis(55)).await;
        stop.cancel();
        driver.await.unwrap();
        let mut finished = 0;
        while rx.recv().await.is_some() {
            finished += 1;
        }
        assert_eq!(finished, 10, "five rounds of two finished before the cancel");
    }

    /// Two conversations of three turns in one slot, each answer 10 ms and a think time of 5 ms: a conversation's
    /// turns go one after another with the pause between them, the second conversation only when the first is
    /// over; each later turn is due at the end of its think time, not at the session's first send.
    #[tokio::test(start_paused = true)]
    async fn a_conversation_sends_its_turns_in_turn_after_the_think_time_in_its_one_slot() {
        let (tx, mut rx) = mpsc::channel(64);
        let start = Instant::now();
        let sessions = (0..2).map(|s| Session {
            first: Job { seq: s * 3, prompt_index: s as u32 * 3, iteration: 0, warmup: false },
            turns: 3,
        });
        let sends = Arc::new(std::sync::Mutex::new(Vec::new()));
        let seen = Arc::clone(&sends);
        let pacing = pace(LoadMode::Closed { concurrency: 1 }, None);
        let think = |_: Job| Duration::from_millis(5);
        let driver = tokio::spawn(drive(sessions, pacing, CancellationToken::new(), tx, think, move |job, due| {
            seen.lock().unwrap().push((job.prompt_index, (due - start).as_millis()));
            async {
                tokio::time::sleep(Duration::from_millis(10)).await;
                measurement(Duration::ZERO)
            }
        }));
        let mut finished = Vec::new();
        while let Some(f) = rx.recv().await {
            finished.push((f.job.seq, f.measurement.timeline.sent_offset_us.unwrap() / 1000));
        }
        driver.await.unwrap();
        assert_eq!(*sends.lock().unwrap(), vec![(0, 0), (1, 15), (2, 30), (3, 40), (4, 55), (5, 70)]);
        assert_eq!(finished, vec![(0, 0), (1, 15), (2, 30), (3, 40), (4, 55), (5, 70)]);
    }

    /// A failed turn ends its conversation: the turns after it are not sent, and the slot goes to the next one.
    #[tokio::test(start_paused = true)]
    async fn a_failed_turn_ends_its_conversation() {
        let (tx, mut rx) = mpsc::channel(64);
        let sessions = (0..2).map(|s| Session {
            first: Job { seq: s * 4, prompt_index: s as u32 * 4, iteration: 0, warmup: false },
            turns: 4,
        });
        let pacing = pace(LoadMode::Closed { concurrency: 1 }, None);
        let driver =
            tokio::spawn(drive(sessions, pacing, CancellationToken::new(), tx, no_think, |job, _| async move {
                let (mut measured, sent) = measurement(Duration::ZERO);
                if job.prompt_index == 1 {
                    measured.error =
                        Some(crate::model::IterationError::new(crate::model::ErrorClass::Http, Some(500), "x"));
                }
                (measured, sent)
            }));
        let mut sent = Vec::new();
        while let Some(f) = rx.recv().await {
            sent.push(f.job.prompt_index);
        }
        driver.await.unwrap();
        assert_eq!(sent, vec![0, 1, 4, 5, 6, 7]);
    }

    /// A turn whose think time ends at or after the time limit is not sent.
    #[tokio::test(start_paused = true)]
    async fn a_turn_due_after_the_limit_is_not_sent() {
        let (tx, mut rx) = mpsc::channel(64);
        let session = Session { first: Job { seq: 0, prompt_index: 0, iteration: 0, warmup: false }, turns: 5 };
        let pacing = pace(LoadMode::Closed { concurrency: 1 }, Some(Duration::from_millis(50)));
        let think = |_: Job| Duration::from_millis(20);
        let driver =
            tokio::spawn(drive(std::iter::once(session), pacing, CancellationToken::new(), tx, think, |_, _| async {
                measurement(Duration::ZERO)
            }));
        let mut sent = Vec::new();
        while let Some(f) = rx.recv().await {
            sent.push(f.measurement.timeline.sent_offset_us.unwrap() / 1000);
        }
        driver.await.unwrap();
        assert_eq!(sent, vec![0, 20, 40], "the fourth turn would be due at 60 ms");
    }

    /// A closed loop ramping from 1 to 4 in flight over 100 ms, each request taking 10 ms: it starts with one slot
    /// and has four by the ramp's end; what was due before 100 ms is a warm-up.
    #[tokio::test(start_paused = true)]
    async fn a_closed_loop_ramps_its_slots_up_and_its_ramp_is_a_warm_up() {
        let (tx, mut rx) = mpsc::channel(1_024);
        let running = Arc::new(AtomicUsize::new(0));
        let peaks = Arc::new(std::sync::Mutex::new(Vec::new()));
        let (r, p) = (Arc::clone(&running), Arc::clone(&peaks));
        let start = Instant::now();
        let ramp = crate::model::LoadShape::Ramp {
            curve: crate::model::RampCurve::Linear,
            from: 1.0,
            seconds: 0.1,
            counted: false,
        };
        let pacing = Pacing { shape: Some(ramp), ..pace(LoadMode::Closed { concurrency: 4 }, None) };
        let driver = tokio::spawn(drive(jobs(60), pacing, CancellationToken::new(), tx, no_think, move |_, _| {
            let (r, p) = (Arc::clone(&r), Arc::clone(&p));
            async move {
                let now = r.fetch_add(1, Ordering::SeqCst) + 1;
                p.lock().unwrap().push(((Instant::now() - start).as_millis(), now));
                tokio::time::sleep(Duration::from_millis(10)).await;
                r.fetch_sub(1, Ordering::SeqCst);
                measurement(Duration::ZERO)
            }
        }));
        let mut finished = Vec::new();
        while let Some(f) = rx.recv().await {
            finished.push(f);
        }
        driver.await.unwrap();
        let peaks = peaks.lock().unwrap();
        let most_by = |ms: u128| peaks.iter().filter(|(t, _)| *t < ms).map(|(_, n)| *n).max().unwrap_or(0);
        assert_eq!(most_by(30), 1, "one slot at first");
        assert_eq!(most_by(200), 4, "four at the ramp's end");
        assert!(peaks.iter().all(|(_, n)| *n <= 4));
        let sent_at = |f: &Finished<()>| f.measurement.timeline.sent_offset_us.unwrap() / 1000;
        assert!(finished.iter().all(|f| f.job.warmup == (sent_at(f) < 100)), "warm-ups are what the ramp sent");
        assert_eq!(finished.len(), 60);
    }
}
