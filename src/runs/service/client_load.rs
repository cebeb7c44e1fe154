//! Watching the load generator's own process while a run sends, so its verdict can say whether the client was the
//! bottleneck: every [`WAKE_EVERY`] a task sleeps and records how late it woke, and every [`WINDOW`] it reads how
//! long the event loop's workers were busy (tokio's own count of the time each worker was not parked: running
//! tasks, or holding work while the machine ran something else) and the whole process's CPU time
//! (`/proc/self/stat`). Both are the process's, not the run's: every run, the server's pages and anything else the
//! process does — a busy server delays its runs' instants as much as a busy run does.

use std::time::Duration;
use tokio::runtime::RuntimeMetrics;
use tokio::task::JoinHandle;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::model::{ClientLoad, LogHistogram, SATURATED_SHARE};

/// How often the event loop's wake-up is timed.
const WAKE_EVERY: Duration = Duration::from_millis(10);
/// The window busy time is read over: short enough to catch a saturated second, long enough for the kernel's
/// 10 ms CPU accounting to read within a few per cent.
const WINDOW: Duration = Duration::from_millis(250);
/// Linux's `USER_HZ`, the unit of `/proc/<pid>/stat`'s CPU times: 100 on every architecture Linux exposes to
/// userspace (the kernel converts from its own `HZ`).
const TICKS_PER_SECOND: f64 = 100.0;

/// A watch under way; [`ClientWatch::finish`] ends it and gives what it saw.
pub struct ClientWatch {
    stop: CancellationToken,
    task: JoinHandle<ClientLoad>,
}

impl ClientWatch {
    /// Starts watching this process (from inside its tokio runtime).
    pub fn start() -> Self {
        let stop = CancellationToken::new();
        Self { task: tokio::spawn(watch(stop.clone())), stop }
    }

    /// Ends the watch: what the process did since it started (`None` if the watch itself stopped, which only a
    /// panic does).
    pub async fn finish(self) -> Option<ClientLoad> {
        self.stop.cancel();
        self.task.await.ok()
    }
}

/// The process's CPU time so far, seconds (user + system, every thread); `None` off Linux.
fn process_cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // The command name (field 2) is in parentheses and may hold spaces; fields 14 and 15 (utime, stime) are the
    // 12th and 13th after its closing parenthesis.
    let mut after = stat.rsplit_once(')')?.1.split_whitespace().skip(11);
    let user: f64 = after.next()?.parse().ok()?;
    let system: f64 = after.next()?.parse().ok()?;
    Some((user + system) / TICKS_PER_SECOND)
}

/// One reading: when, the workers' busy time summed, the process's CPU time.
#[derive(Clone, Copy)]
struct Reading {
    at: Instant,
    busy: Duration,
    cpu: Option<f64>,
}

impl Reading {
    fn now(metrics: &RuntimeMetrics) -> Self {
        let busy = (0..metrics.num_workers()).map(|w| metrics.worker_total_busy_duration(w)).sum();
        Self { at: Instant::now(), busy, cpu: process_cpu_seconds() }
    }
}

/// The busy time measured in windows.
struct Windows {
    metrics: RuntimeMetrics,
    cores: f64,
    windows: u32,
    busy_windows: u32,
    first: Reading,
    last: Reading,
}

impl Windows {
    fn start(metrics: RuntimeMetrics) -> Self {
        let cores = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get) as f64;
        let now = Reading::now(&metrics);
        Self { metrics, cores, windows: 0, busy_windows: 0, first: now, last: now }
    }

    fn workers(&self) -> f64 {
        self.metrics.num_workers().max(1) as f64
    }

    /// Closes the window that began at the last reading, once it is long enough.
    fn read(&mut self) {
        if self.last.at.elapsed() < WINDOW {
            return;
        }
        let now = Reading::now(&self.metrics);
        let wall = now.at.duration_since(self.last.at).as_secs_f64();
        let busy = now.busy.saturating_sub(self.last.busy).as_secs_f64() / wall / self.workers();
        self.windows += 1;
        self.busy_windows += u32::from(busy >= SATURATED_SHARE);
        self.last = now;
    }

    fn load(&self, lags: &LogHistogram, wake_lag_max_ms: f64) -> ClientLoad {
        let wall = self.last.at.duration_since(self.first.at).as_secs_f64();
        let share = |used: f64, of: f64| if wall > 0.0 { used / wall / of } else { 0.0 };
        let busy = self.last.busy.saturating_sub(self.first.busy).as_secs_f64();
        ClientLoad {
            workers: u32::try_from(self.metrics.num_workers()).unwrap_or(u32::MAX),
            cores: self.cores,
            window_ms: WINDOW.as_secs_f64() * 1e3,
            windows: self.windows,
            busy_windows: self.busy_windows,
            busy_share: share(busy, self.workers()),
            cpu_share: self.first.cpu.zip(self.last.cpu).map(|(first, last)| share(last - first, self.cores)),
            wakes: u32::try_from(lags.count()).unwrap_or(u32::MAX),
            wake_lag_p99_ms: lags.percentile(99.0).unwrap_or(0.0),
            wake_lag_max_ms,
        }
    }
}

async fn watch(stop: CancellationToken) -> ClientLoad {
    let mut windows = Windows::start(tokio::runtime::Handle::current().metrics());
    let mut lags = LogHistogram::default();
    let mut max_lag_ms: f64 = 0.0;
    loop {
        let due = Instant::now() + WAKE_EVERY;
        tokio::select! {
            () = tokio::time::sleep_until(due) => {}
            () = stop.cancelled() => break,
        }
        let lag_ms = Instant::now().saturating_duration_since(due).as_secs_f64() * 1e3;
        lags.add(lag_ms);
        max_lag_ms = max_lag_ms.max(lag_ms);
        windows.read();
    }
    windows.load(&lags, max_lag_ms)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg(target_os = "linux")]
    fn the_process_cpu_time_is_read_and_grows_with_work() {
        let before = process_cpu_seconds().expect("Linux has /proc/self/stat");
        let started = std::time::Instant::now();
        let mut x: u64 = 1;
        while started.elapsed() < Duration::from_millis(200) {
            x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
        }
        let after = process_cpu_seconds().unwrap();
        // Other processes may share the core; a tenth of the spin is enough to show the reading moves.
        assert!(after - before >= 0.02, "200 ms of spinning read as {} s", after - before);
    }

    #[tokio::test(flavor = "current_thread")]
    async fn a_worker_kept_busy_is_saturated_and_an_idle_one_is_not() {
        let watch = ClientWatch::start();
        tokio::time::sleep(Duration::from_millis(600)).await;
        let idle = watch.finish().await.unwrap();
        assert!(idle.windows >= 2 && idle.busy_windows == 0, "{idle:?}");

        // A task that never yields for long holds the one worker; the watch reads it between the task's slices.
        let watch = ClientWatch::start();
        let until = std::time::Instant::now() + Duration::from_millis(900);
        while std::time::Instant::now() < until {
            let spin = std::time::Instant::now();
            while spin.elapsed() < Duration::from_millis(5) {
                std::hint::black_box(spin);
            }
            tokio::task::yield_now().await;
        }
        let busy = watch.finish().await.unwrap();
        assert!(busy.windows >= 2 && busy.busy_windows * 2 >= busy.windows, "{busy:?}");
        assert!(busy.busy_share > 0.9 && busy.workers == 1, "{busy:?}");
    }
}
