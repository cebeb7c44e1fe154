//! Sleeping until absolute instants with sub-millisecond accuracy, for many streams at once.
//!
//! The runtime's timer wakes up to a millisecond late. One ticker task per simulator keeps every deadline in a
//! queue and waits for the earliest on a kernel timer of nanosecond resolution (`timerfd`), then wakes each
//! sleeper whose deadline has passed. It used to cover the last 1.5 ms before a deadline by yielding in a loop:
//! on time, but at 1,000 streams a deadline is always that near, so the simulator's core read 95–100 % busy
//! whatever it served, and a benchmark could not tell a simulator that keeps up from one that does not.

use nix::sys::time::TimeSpec;
use nix::sys::timerfd::{ClockId, Expiration, TimerFd, TimerFlags, TimerSetTimeFlags};
use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::os::fd::{AsFd, AsRawFd, RawFd};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::Duration;
use tokio::io::unix::AsyncFd;
use tokio::sync::{oneshot, Notify};
use tokio::time::Instant;

/// How often an idle ticker checks whether its simulator is gone.
const IDLE_CHECK: Duration = Duration::from_secs(1);

/// A shared precise timer. Cheap to clone; the ticker starts on first use and ends when every clone is gone.
#[derive(Clone, Default)]
pub struct DeadlineTimer {
    shared: Arc<Shared>,
}

#[derive(Default)]
struct Shared {
    queue: Mutex<Queue>,
    /// Signalled when a new earliest deadline arrives, so a coarse sleep can be cut short.
    changed: Notify,
    ticker: OnceLock<()>,
}

#[derive(Default)]
struct Queue {
    heap: BinaryHeap<Sleeper>,
    next_seq: u64,
}

struct Sleeper {
    deadline: Instant,
    /// Keeps equal deadlines first-come, first-woken.
    seq: u64,
    wake: oneshot::Sender<()>,
}

impl Ord for Sleeper {
    /// Reversed, so the max-heap yields the earliest deadline.
    fn cmp(&self, other: &Self) -> Ordering {
        (other.deadline, other.seq).cmp(&(self.deadline, self.seq))
    }
}

impl PartialOrd for Sleeper {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Sleeper {
    fn eq(&self, other: &Self) -> bool {
        (self.deadline, self.seq) == (other.deadline, other.seq)
    }
}

impl Eq for Sleeper {}

impl Shared {
    fn queue(&self) -> std::sync::MutexGuard<'_, Queue> {
        // Pushes and pops cannot leave the heap inconsistent, so a poisoned lock is still usable.
        self.queue.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Wakes every sleeper whose deadline has passed; returns the next deadline.
    fn wake_due(&self) -> Option<Instant> {
        let now = Instant::now();
        let mut queue = self.queue();
        while queue.heap.peek().is_some_and(|s| s.deadline <= now) {
            if let Some(sleeper) = queue.heap.pop() {
                // A sleeper whose stream was dropped no longer listens; nothing to do.
                let _ = sleeper.wake.send(());
            }
        }
        queue.heap.peek().map(|s| s.deadline)
    }
}

impl DeadlineTimer {
    /// Waits until `deadline`, waking within tens of microseconds of it.
    pub async fn sleep_until(&self, deadline: Instant) {
        if deadline <= Instant::now() {
            return;
        }
        self.shared.ticker.get_or_init(|| {
            tokio::spawn(tick(Arc::clone(&self.shared)));
        });
        let (wake, woken) = oneshot::channel();
        let earliest = {
            let mut queue = self.shared.queue();
            let seq = queue.next_seq;
            queue.next_seq += 1;
            let earliest = queue.heap.peek().is_none_or(|s| deadline < s.deadline);
            queue.heap.push(Sleeper { deadline, seq, wake });
            earliest
        };
        if earliest {
            self.shared.changed.notify_one();
        }
        // The ticker lives as long as any clone of this timer, so the sender is never dropped unsent.
        let _ = woken.await;
    }
}

/// The one loop that waits for every sleeper: until the earliest deadline, or a new earlier one.
async fn tick(shared: Arc<Shared>) {
    let mut alarm = Alarm::new();
    loop {
        match shared.wake_due() {
            None => {
                if Arc::strong_count(&shared) == 1 {
                    return; // every timer handle is gone and nobody sleeps
                }
                let _ = tokio::time::timeout(IDLE_CHECK, shared.changed.notified()).await;
            }
            Some(next) => {
                tokio::select! {
                    () = alarm.until(next) => {}
                    () = shared.changed.notified() => {}
                }
            }
        }
    }
}

/// A wait until an instant: the kernel's timer where it gives one, else the runtime's (a millisecond coarse).
enum Alarm {
    Precise(AsyncFd<KernelTimer>),
    Coarse,
}

/// A `timerfd`, which the runtime can wait on.
struct KernelTimer(TimerFd);

impl AsRawFd for KernelTimer {
    fn as_raw_fd(&self) -> RawFd {
        self.0.as_fd().as_raw_fd()
    }
}

impl Alarm {
    #[allow(
        deprecated,
        reason = "`AsyncFd::new` is deprecated because a caller could close or swap the descriptor under it; the \
                  `TimerFd` it is given owns its descriptor, never hands it out, and lives exactly as long"
    )]
    fn new() -> Self {
        let flags = TimerFlags::TFD_NONBLOCK | TimerFlags::TFD_CLOEXEC;
        let timer = TimerFd::new(ClockId::CLOCK_MONOTONIC, flags).map_err(std::io::Error::from);
        match timer.and_then(|timer| AsyncFd::new(KernelTimer(timer))) {
            Ok(timer) => Self::Precise(timer),
            Err(error) => {
                tracing::warn!(%error, "no kernel timer: the simulator's delays are kept to the millisecond");
                Self::Coarse
            }
        }
    }

    /// Returns at `deadline` (a little after), or at once when it has passed.
    async fn until(&mut self, deadline: Instant) {
        let Some(left) = deadline.checked_duration_since(Instant::now()).filter(|left| !left.is_zero()) else {
            return;
        };
        let timer = match self {
            Self::Precise(timer) => timer,
            Self::Coarse => return tokio::time::sleep_until(deadline).await,
        };
        // Relative to now: `tokio::time::Instant` does not say which clock it reads.
        let armed =
            timer.get_ref().0.set(Expiration::OneShot(TimeSpec::from_duration(left)), TimerSetTimeFlags::empty());
        if armed.is_err() {
            return tokio::time::sleep_until(deadline).await;
        }
        loop {
            let Ok(mut ready) = timer.readable().await else {
                return tokio::time::sleep_until(deadline).await;
            };
            // Reading the expiry count clears it; nothing to read yet means the readiness was stale.
            match ready.try_io(|timer| timer.get_ref().0.wait().map_err(std::io::Error::from)) {
                Ok(_) => return,
                Err(_would_block) => continue,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn sleepers_wake_in_deadline_order_and_not_early() {
        let timer = DeadlineTimer::default();
        let start = Instant::now();
        let order = Arc::new(Mutex::new(Vec::new()));
        let mut tasks = Vec::new();
        for (label, ms) in [(2, 30), (0, 10), (1, 20), (3, 30)] {
            let (timer, order) = (timer.clone(), Arc::clone(&order));
            tasks.push(tokio::spawn(async move {
                let deadline = start + Duration::from_millis(ms);
                timer.sleep_until(deadline).await;
                assert!(Instant::now() >= deadline, "woke before its deadline");
                order.lock().unwrap_or_else(PoisonError::into_inner).push(label);
            }));
            tokio::task::yield_now().await; // registers 2 before 3: equal deadlines wake first-come
        }
        for task in tasks {
            task.await.unwrap_or_else(|e| panic!("sleeper failed: {e}"));
        }
        assert_eq!(*order.lock().unwrap_or_else(PoisonError::into_inner), vec![0, 1, 2, 3]);
    }

    #[tokio::test]
    async fn a_deadline_in_the_past_returns_at_once() {
        let timer = DeadlineTimer::default();
        timer.sleep_until(Instant::now()).await;
        assert!(timer.shared.ticker.get().is_none(), "no ticker is needed for it");
    }
}
