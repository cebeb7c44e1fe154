//! Kept connections, by destination: the most recently used is taken first (its server is least likely to have
//! closed it), and one idle longer than [`IDLE_TIMEOUT`] or closed by its server is dropped instead of used.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::time::Duration;
use tokio::time::Instant;

use super::connection::Connection;
use crate::outbound::Reach;

/// How long a connection may sit idle before it is closed (hyper's default, which the engine used before).
pub const IDLE_TIMEOUT: Duration = Duration::from_secs(90);

/// The most idle connections kept for one destination: above the most requests a run keeps in flight, and a bound
/// on the sockets a burst can leave open.
pub const MAX_IDLE_PER_DESTINATION: usize = 4096;

/// Which connections may carry a request: the same host and port, opened under the same reach (a connection opened
/// for a target that may reach anywhere was never judged for one that may reach public addresses only).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct PoolKey {
    /// `host:port`, as the URL names them (shared: every response handed back to the pool carries its key).
    pub authority: Arc<str>,
    /// The reach the connection was opened under.
    pub reach: Reach,
}

#[derive(Debug)]
struct Idle {
    connection: Connection,
    since: Instant,
}

/// The idle connections.
#[derive(Debug, Default)]
pub struct Pool {
    idle: Mutex<HashMap<PoolKey, VecDeque<Idle>>>,
    /// A task closes connections idle too long, once one was kept (started inside a runtime).
    sweeping: std::sync::atomic::AtomicBool,
}

impl Pool {
    /// The most recently kept connection to `key` that is still open.
    pub fn take(&self, key: &PoolKey) -> Option<Connection> {
        let mut dropped = Vec::new();
        let taken = {
            let mut idle = self.idle.lock().unwrap_or_else(PoisonError::into_inner);
            let queue = idle.get_mut(key)?;
            loop {
                let Some(entry) = queue.pop_back() else { break None };
                if entry.since.elapsed() < IDLE_TIMEOUT && !entry.connection.closed_while_idle() {
                    break Some(entry.connection);
                }
                dropped.push(entry);
            }
        };
        // Closed outside the lock.
        drop(dropped);
        taken
    }

    /// Keeps `connection` for the next request to `key`.
    pub fn put(self: &Arc<Self>, key: PoolKey, connection: Connection) {
        let now = Instant::now();
        let stale = {
            let mut idle = self.idle.lock().unwrap_or_else(PoisonError::into_inner);
            let queue = idle.entry(key).or_default();
            queue.push_back(Idle { connection, since: now });
            let mut stale = Vec::new();
            while queue.len() > MAX_IDLE_PER_DESTINATION
                || queue.front().is_some_and(|oldest| now.duration_since(oldest.since) >= IDLE_TIMEOUT)
            {
                stale.extend(queue.pop_front());
            }
            stale
        };
        drop(stale);
        self.start_sweeping();
    }

    /// Drops every connection idle longer than [`IDLE_TIMEOUT`] (and destinations left with none).
    fn sweep(&self) {
        let now = Instant::now();
        let stale: Vec<Idle> = {
            let mut idle = self.idle.lock().unwrap_or_else(PoisonError::into_inner);
            let mut stale = Vec::new();
            for queue in idle.values_mut() {
                while queue.front().is_some_and(|oldest| now.duration_since(oldest.since) >= IDLE_TIMEOUT) {
                    stale.extend(queue.pop_front());
                }
            }
            idle.retain(|_, queue| !queue.is_empty());
            stale
        };
        drop(stale);
    }

    /// A connection left idle after a run would otherwise stay open until the next request to its destination; the
    /// sweep closes it after [`IDLE_TIMEOUT`], as hyper's pool did. It holds the pool weakly and ends with it.
    fn start_sweeping(self: &Arc<Self>) {
        use std::sync::atomic::Ordering;
        if self.sweeping.load(Ordering::Relaxed) || self.sweeping.swap(true, Ordering::AcqRel) {
            return;
        }
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            self.sweeping.store(false, Ordering::Release);
            return;
        };
        let pool: Weak<Self> = Arc::downgrade(self);
        runtime.spawn(async move {
            let mut every = tokio::time::interval(IDLE_TIMEOUT / 3);
            every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                every.tick().await;
                let Some(pool) = pool.upgrade() else { return };
                pool.sweep();
            }
        });
    }
}
