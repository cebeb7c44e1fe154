//! When a failed delivery is tried again: one schedule for every channel (webhooks, e-mail), and the outbox
//! settings both deliverers share.

use crate::guard::store::AttemptOutcome;

/// Waits after the 1st, 2nd, … failed attempt; after the last one the message is given up (about 15 h in all).
pub const RETRY_DELAYS_S: [i64; 7] = [30, 120, 600, 1_800, 3_600, 3 * 3_600, 9 * 3_600];
/// How long a deliverer holds a leased message before another may take it.
pub(super) const LEASE_MS: i64 = 60_000;
/// Messages one pass sends at most.
pub(super) const BATCH: u32 = 50;

/// Runs `pass` every `interval` until the process ends (a deliverer's loop); a failed pass is logged as `what`.
pub(super) async fn every<F, Fut>(interval: std::time::Duration, what: &'static str, mut pass: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<usize, crate::store::StoreError>>,
{
    let mut ticks = tokio::time::interval(interval);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        ticks.tick().await;
        if let Err(e) = pass().await {
            tracing::error!(error = %e, "{what} failed");
        }
    }
}

/// What follows an attempt made at `at_ms` after `attempts_before` earlier ones.
pub fn next_step(succeeded: bool, attempts_before: u32, at_ms: i64) -> AttemptOutcome {
    if succeeded {
        return AttemptOutcome::Delivered;
    }
    match RETRY_DELAYS_S.get(attempts_before as usize) {
        Some(delay) => AttemptOutcome::RetryAt(at_ms + delay * 1_000),
        None => AttemptOutcome::GaveUp,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retries_back_off_then_give_up() {
        assert_eq!(next_step(true, 3, 1_000), AttemptOutcome::Delivered);
        assert_eq!(next_step(false, 0, 1_000), AttemptOutcome::RetryAt(31_000));
        assert_eq!(next_step(false, 6, 0), AttemptOutcome::RetryAt(9 * 3_600_000));
        assert_eq!(next_step(false, 7, 0), AttemptOutcome::GaveUp);
    }
}
