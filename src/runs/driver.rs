//! The one load driver. Every mode is "send job k at its scheduled instant, when a slot is free": a closed loop
//! has no schedule and `concurrency` slots; an open loop has a constant or Poisson schedule and a cap. The
//! intended send instant travels with each job, so lag behind the schedule is measured, not hidden.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{mpsc, Semaphore};
use tokio::task::JoinSet;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::arrivals::Schedule;
use crate::model::{Job, LoadMode, Measurement};

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

/// Sends every job through `execute(job, intended_send)` and reports each result on `results` (bounded: a slow
/// consumer slows the run rather than growing memory). Stops early on `cancel`, dropping requests in flight.
/// `seed` fixes the Poisson schedule, so a run's arrival pattern can be reproduced. With a `limit`, no job due at or
/// after that long past the instant the first measured (non-warm-up) job was due is sent; the jobs in flight then
/// finish. "Due" is the schedule's instant, or in a closed loop the instant a slot came free; each send's lag
/// behind it is measured by `execute` and kept as the schedule lag.
pub async fn drive<F, Fut, R>(
    jobs: impl Iterator<Item = Job>,
    mode: LoadMode,
    limit: Option<Duration>,
    seed: u64,
    cancel: CancellationToken,
    results: mpsc::Sender<Finished<R>>,
    execute: F,
) where
    F: Fn(Job, Instant) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = (Measurement, R)> + Send + 'static,
    R: Send + 'static,
{
    let execute = Arc::new(execute);
    let slots = Arc::new(Semaphore::new(slots(mode)));
    let mut schedule = Schedule::new(mode, seed);
    let start = Instant::now();
    let mut in_flight = JoinSet::new();
    let mut deadline: Option<Instant> = None;
    for job in jobs {
        let planned = schedule.next_offset().map(|offset| start + offset);
        if let Some(at) = planned {
            tokio::select! {
                () = tokio::time::sleep_until(at) => {}
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
        if !job.warmup && deadline.is_none() {
            deadline = limit.map(|limit| intended + limit);
        }
        let execute = Arc::clone(&execute);
        let results = results.clone();
        in_flight.spawn(async move {
            let (mut measurement, sent) = execute(job, intended).await;
            // The actual send: the intended instant plus how late it went out.
            let sent_at =
                intended.saturating_duration_since(start).as_micros() as u64 + measurement.timeline.schedule_lag_us;
            measurement.timeline.sent_offset_us = Some(sent_at);
            drop(permit);
            // A closed receiver means the run is being torn down; the result has nowhere to go.
            let _ = results.send(Finished { job, measurement, sent }).await;
        });
        while in_flight.try_join_next().is_some() {}
    }
    tokio::select! {
        () = async { while in_flight.join_next().await.is_some() {} } => {}
        () = cancel.cancelled() => in_flight.abort_all(),
    }
    while in_flight.join_next().await.is_some() {}
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Timeline;
    use std::sync::atomic::{AtomicUsize, Ordering};

    fn jobs(n: u64) -> impl Iterator<Item = Job> {
        (0..n).map(|seq| Job { seq, prompt_index: 0, iteration: seq as u32, warmup: false })
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
            LoadMode::Closed { concurrency: 3 },
            None,
            1,
            CancellationToken::new(),
            tx,
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
        tokio::spawn(drive(jobs(5), mode, None, 1, CancellationToken::new(), tx, move |_, intended| async move {
            let lag = Instant::now() - intended;
            tokio::time::sleep(Duration::from_millis(25)).await;
            measurement(lag)
        }));
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
        let warmups = (0..4).map(|seq| Job { seq, prompt_index: 0, iteration: 0, warmup: true });
        let measured = (4..1_004).map(|seq| Job { seq, prompt_index: 0, iteration: seq as u32, warmup: false });
        let limit = Some(Duration::from_millis(95));
        let mode = LoadMode::Closed { concurrency: 2 };
        let driver =
            tokio::spawn(drive(warmups.chain(measured), mode, limit, 1, CancellationToken::new(), tx, |_, _| async {
                tokio::time::sleep(Duration::from_millis(10)).await;
                measurement(Duration::ZERO)
            }));
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
        let driver = tokio::spawn(drive(jobs(1_000), mode, limit, 1, CancellationToken::new(), tx, move |_, due| {
            seen.lock().unwrap().push((due - start).as_millis());
            async { measurement(Duration::ZERO) }
        }));
        while rx.recv().await.is_some() {}
        driver.await.unwrap();
        assert_eq!(*sent.lock().unwrap(), vec![0, 10, 20, 30, 40]);
    }

    #[tokio::test(start_paused = true)]
    async fn cancelling_stops_sending_and_drops_requests_in_flight() {
        let (tx, mut rx) = mpsc::channel(64);
        let cancel = CancellationToken::new();
        let stop = cancel.clone();
        let driver =
            tokio::spawn(drive(jobs(1_000), LoadMode::Closed { concurrency: 2 }, None, 1, cancel, tx, |_, _| async {
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
}
