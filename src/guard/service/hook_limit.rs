//! The tick hook's budget: one hook tick at a time in this process (a second one while the first runs is refused),
//! a burst of 5 and then one every 6 s across replicas, and each client calling the hook 10 calls at once and then
//! one every 6 s, counted before its key is compared. The route itself is the edge's (`server::routes::guard_hook`).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use crate::rate_limit::Budget;

/// One more hook tick is allowed after this long.
const REFILL: Duration = Duration::from_secs(6);
/// Five hook ticks at once after a quiet spell, then one every six seconds.
pub const HOOK_BUDGET: Budget = Budget { burst: 5.0, refill: REFILL };
/// Each client: ten calls at once, then one every six seconds, whether its key is right or not.
pub const HOOK_CLIENT_BUDGET: Budget = Budget { burst: 10.0, refill: REFILL };

/// The hook's one-at-a-time rule in this process.
#[derive(Debug, Clone, Default)]
pub struct HookLimit {
    running: Arc<AtomicBool>,
}

/// Why a hook tick was refused, and when to come back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// In words.
    pub reason: &'static str,
    /// When a call may succeed.
    pub retry_after: Duration,
}

impl Refusal {
    /// The hook's budget across replicas is spent.
    pub fn too_many(retry_after: Duration) -> Self {
        Self { reason: "too many guard ticks from the hook; try again later", retry_after }
    }

    /// This client called too often (right key or not).
    pub fn client_too_often(retry_after: Duration) -> Self {
        Self { reason: "too many calls to the hook from this address; try again later", retry_after }
    }
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
    /// Starts a tick now, or says that one is still running.
    pub fn start(&self) -> Result<Turn, Refusal> {
        if self.running.swap(true, Ordering::AcqRel) {
            return Err(Refusal { reason: "a guard tick from the hook is still running", retry_after: REFILL });
        }
        Ok(Turn(Arc::clone(&self.running)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_tick_at_a_time() {
        let limit = HookLimit::default();
        let turn = limit.start().unwrap();
        assert_eq!(limit.start().unwrap_err().reason, "a guard tick from the hook is still running");
        drop(turn);
        assert!(limit.start().is_ok(), "the next one goes once the first ended");
    }
}
