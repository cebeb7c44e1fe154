//! Token buckets: a burst, then one call per refill interval. One bucket (`TokenBucket`) for a single caller such
//! as Guard's tick hook; one per client address (`PerClient`) for the login routes, where one client's flood must
//! not lock everyone else out.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// A burst of calls, then one per `refill`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Budget {
    /// Calls allowed at once after a quiet spell.
    pub burst: f64,
    /// One more call is allowed after this long.
    pub refill: Duration,
}

/// One bucket's level at a moment.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TokenBucket {
    tokens: f64,
    since: Instant,
}

impl TokenBucket {
    /// A full bucket.
    pub fn full(budget: Budget, now: Instant) -> Self {
        Self { tokens: budget.burst, since: now }
    }

    fn refilled(self, budget: Budget, now: Instant) -> f64 {
        let gained = now.saturating_duration_since(self.since).as_secs_f64() / budget.refill.as_secs_f64();
        (self.tokens + gained).min(budget.burst)
    }

    /// Takes one call from the bucket, or says how long until one is allowed.
    pub fn take(&mut self, budget: Budget, now: Instant) -> Result<(), Duration> {
        let tokens = self.refilled(budget, now);
        if tokens < 1.0 {
            *self = Self { tokens, since: now };
            return Err(budget.refill.mul_f64(1.0 - tokens));
        }
        *self = Self { tokens: tokens - 1.0, since: now };
        Ok(())
    }

    /// Whether the bucket would be full at `now` (nothing to remember about its caller).
    fn is_full(self, budget: Budget, now: Instant) -> bool {
        self.refilled(budget, now) >= budget.burst
    }
}

/// How many callers' buckets are kept before the full ones (callers quiet long enough) are forgotten.
const REMEMBERED: usize = 10_000;

/// One bucket per client key, shared by clones.
#[derive(Debug, Clone)]
pub struct PerClient<K> {
    budget: Budget,
    buckets: Arc<Mutex<HashMap<K, TokenBucket>>>,
}

impl<K: Hash + Eq + Clone> PerClient<K> {
    /// Every client starts with a full `budget`.
    pub fn new(budget: Budget) -> Self {
        Self { budget, buckets: Arc::default() }
    }

    /// Admits one call of `client` now, or says how long until one is allowed.
    pub fn admit(&self, client: &K) -> Result<(), Duration> {
        self.admit_at(client, Instant::now())
    }

    fn admit_at(&self, client: &K, now: Instant) -> Result<(), Duration> {
        let mut buckets = self.buckets.lock().unwrap_or_else(PoisonError::into_inner);
        if buckets.len() >= REMEMBERED && !buckets.contains_key(client) {
            let budget = self.budget;
            buckets.retain(|_, bucket| !bucket.is_full(budget, now));
        }
        buckets.entry(client.clone()).or_insert_with(|| TokenBucket::full(self.budget, now)).take(self.budget, now)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BUDGET: Budget = Budget { burst: 3.0, refill: Duration::from_secs(2) };

    #[test]
    fn a_burst_then_one_per_refill_with_the_wait_said() {
        let start = Instant::now();
        let mut bucket = TokenBucket::full(BUDGET, start);
        for _ in 0..3 {
            bucket.take(BUDGET, start).unwrap();
        }
        assert_eq!(bucket.take(BUDGET, start), Err(Duration::from_secs(2)));
        assert_eq!(bucket.take(BUDGET, start + Duration::from_secs(1)), Err(Duration::from_secs(1)));
        assert!(bucket.take(BUDGET, start + Duration::from_secs(2)).is_ok());
        assert!(bucket.take(BUDGET, start + Duration::from_secs(100)).is_ok(), "a quiet spell refills");
    }

    #[test]
    fn each_client_has_its_own_bucket_and_quiet_ones_are_forgotten() {
        let limit = PerClient::new(BUDGET);
        let start = Instant::now();
        for _ in 0..3 {
            limit.admit_at(&"a", start).unwrap();
        }
        assert!(limit.admit_at(&"a", start).is_err());
        assert!(limit.admit_at(&"b", start).is_ok(), "another client is not held back by the first");
        let many = PerClient::new(BUDGET);
        for i in 0..REMEMBERED {
            many.admit_at(&i, start).unwrap();
        }
        many.admit_at(&usize::MAX, start + Duration::from_secs(10)).unwrap();
        assert_eq!(many.buckets.lock().unwrap().len(), 1, "buckets full again are dropped when the map is full");
    }
}
