//! Sleeping until an absolute instant with sub-millisecond accuracy.

use std::time::Duration;
use tokio::time::Instant;

/// Below this much remaining time the coarse (millisecond-granular) timer is not trusted.
const SPIN_WINDOW: Duration = Duration::from_micros(1_500);

/// Waits until `deadline`: the runtime's timer for the bulk, then cooperative yields for the last stretch, so the
/// wake-up lands within tens of microseconds instead of up to a millisecond late.
pub async fn sleep_until_precise(deadline: Instant) {
    if let Some(coarse) = deadline.checked_sub(SPIN_WINDOW) {
        if coarse > Instant::now() {
            tokio::time::sleep_until(coarse).await;
        }
    }
    while Instant::now() < deadline {
        tokio::task::yield_now().await;
    }
}
