//! The tick hook's budget: one hook tick at a time, a burst of 5, then one every 6 s. The route itself is the
//! edge's (`server::routes::guard_hook`).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::rate_limit::{Budget, TokenBucket};

/// One more hook tick is allowed after this long.
const REFILL: Duration = Duration::from_secs(6);
/// Five hook ticks at once after a quiet spell, then one every six seconds.
const BUDGET: Budget = Budget { burst: 5.0, refill: REFILL };

/// The hook's budget: one tick at a time, and a token bucket over time.
#[derive(Debug, Clone)]
pub struct HookLimit {
    running: Arc<AtomicBool>,
    bucket: Arc<Mutex<TokenBucket>>,
}

impl Default for HookLimit {
    fn default() -> Self {
        Self {
            running: Arc::new(AtomicBool::new(false)),
            bucket: Arc::new(Mutex::new(TokenBucket::full(BUDGET, Instant::now()))),
        }
    }
}

/// Why a hook tick was refused, and when to come back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// In words.
    pub reason: &'static str,
    /// When a call may succeed.
    pub retry_after: Duration,
}

/// A hook tick under way; dropping it lets the next one in.
#[derive(Debug)]
pub struct Turn(Arc<AtomicBool>);

impl Drop for Turn {
    fn drop(&mut self) {
        self.0.store(false, Ordering::Release);
    }
}

impl HookLimit {
    /// Admits a tick now, or says why not.
    pub fn admit(&self) -> Result<Turn, Refusal> {
        self.admit_at(Instant::now())
    }

    fn admit_at(&self, now: Instant) -> Result<Turn, Refusal> {
        // The bucket's lock is held throughout, so the running flag is read and set by one caller at a time.
        let mut bucket = self.bucket.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if self.running.load(Ordering::Acquire) {
            return Err(Refusal { reason: "a guard tick from the hook is still running", retry_after: REFILL });
        }
        bucket.take(BUDGET, now).map_err(|retry_after| Refusal {
            reason: "too many guard ticks from the hook; try again later",
            retry_after,
        })?;
        self.running.store(true, Ordering::Release);
        Ok(Turn(Arc::clone(&self.running)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_tick_at_a_time_and_a_burst_then_one_every_six_seconds() {
        let limit = HookLimit::default();
        let start = Instant::now();
        let turn = limit.admit_at(start).unwrap();
        assert_eq!(limit.admit_at(start).unwrap_err().reason, "a guard tick from the hook is still running");
        drop(turn);
        for _ in 1..5 {
            drop(limit.admit_at(start).unwrap());
        }
        let refused = limit.admit_at(start).unwrap_err();
        assert!(refused.reason.starts_with("too many"));
        assert!(refused.retry_after <= REFILL && refused.retry_after > Duration::ZERO);
        assert!(limit.admit_at(start + REFILL).is_ok(), "one more after six seconds");
        assert!(limit.admit_at(start + REFILL).is_err());
        assert!(limit.admit_at(start + REFILL * 100).is_ok(), "a quiet spell refills the burst");
    }
}
