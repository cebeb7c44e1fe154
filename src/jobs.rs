//! What every kind of background job (runs, A/B tests, sweeps) shares: the jobs this process drives, how a cancel
//! reaches one (at once when it is driven here, otherwise through the database, where its driver finds it at its
//! next heartbeat), and the upkeep round that renews their heartbeat, stops those cancelled through another
//! process and marks interrupted the jobs of processes gone silent. Several server processes may share one
//! database; each job records the process driving it (`owner`, this process's [`LiveJobs::instance`]).

use std::collections::HashMap;
use std::future::Future;
use std::hash::Hash;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

use crate::model::{RunStatus, ValidationError, WorkspaceId};
use crate::store::{JobTable, ReportedJob, Store, StoreError};

/// Heartbeats a job's driver may miss before the job counts as orphaned.
pub const MISSED_HEARTBEATS: u32 = 6;

/// The time (unix ms) before which a running job's last heartbeat makes it an orphan, at `now_ms`.
pub fn orphaned_before(now_ms: i64, heartbeat: Duration) -> i64 {
    now_ms.saturating_sub(i64::try_from((heartbeat * MISSED_HEARTBEATS).as_millis()).unwrap_or(i64::MAX))
}

/// The database side of one kind of job, whose ids are `Id`: the store for every kind (its tables), a table in
/// memory for this module's tests.
pub trait JobRecords<Id>: Send + Sync {
    /// What the log calls these jobs ("runs").
    const KIND: &'static str;

    /// Renews the heartbeat of the running jobs `owner` drives; returns those a cancel was asked of elsewhere.
    fn heartbeat(&self, owner: &str, now_ms: i64) -> impl Future<Output = Result<Vec<Id>, StoreError>> + Send;

    /// Asks the driver of a running job of `workspace` to stop it; `false` when it is not running, `NotFound`
    /// when the workspace has no such job.
    fn request_cancel(&self, workspace: WorkspaceId, id: Id) -> impl Future<Output = Result<bool, StoreError>> + Send;

    /// Marks interrupted the running jobs whose last heartbeat is older than `silent_since_ms`; how many.
    fn interrupt_orphaned(
        &self,
        silent_since_ms: i64,
        now_ms: i64,
    ) -> impl Future<Output = Result<u64, StoreError>> + Send;
}

impl<J: JobTable> JobRecords<J> for Store {
    const KIND: &'static str = J::TABLE;

    async fn heartbeat(&self, owner: &str, now_ms: i64) -> Result<Vec<J>, StoreError> {
        self.heartbeat_jobs(owner, now_ms).await
    }

    async fn request_cancel(&self, workspace: WorkspaceId, id: J) -> Result<bool, StoreError> {
        self.request_job_cancel(workspace, id).await
    }

    async fn interrupt_orphaned(&self, silent_since_ms: i64, now_ms: i64) -> Result<u64, StoreError> {
        self.interrupt_orphaned_jobs::<J>(silent_since_ms, now_ms).await
    }
}

/// A manager of one kind of job, as the rest of the server sees it: it gives its [`LiveJobs`], its store and the
/// time; cancelling, the upkeep loop and stopping at shutdown are the same for every kind and come from here.
pub trait JobOwner: Send + Sync {
    /// The job's id, which names its table.
    type Id: JobTable + Eq + Hash;
    /// What the kind keeps of each job driven here (a run's live updates).
    type Kept: Send + Sync;

    /// The jobs this process drives.
    fn live_jobs(&self) -> &LiveJobs<Self::Id, Self::Kept>;
    /// Where the jobs are recorded.
    fn store(&self) -> &Store;
    /// Now, unix ms, by the manager's clock.
    fn now_ms(&self) -> i64;

    /// Asks a running job of `workspace` to stop (what it measured is kept): at once when this process drives it,
    /// otherwise through the database, so its driver stops it at its next heartbeat. `false` when it is not
    /// running, `NotFound` when the workspace has no such job.
    fn cancel(&self, workspace: WorkspaceId, id: Self::Id) -> impl Future<Output = Result<bool, StoreError>> + Send {
        self.live_jobs().cancel(self.store(), workspace, id)
    }

    /// One upkeep round ([`LiveJobs::upkeep`]) now.
    fn maintain_once(&self, heartbeat: Duration) -> impl Future<Output = ()> + Send {
        self.live_jobs().upkeep(self.store(), heartbeat, self.now_ms())
    }

    /// An upkeep round every `heartbeat` (a late one is not made up) until the process ends.
    fn maintain(self, heartbeat: Duration) -> impl Future<Output = ()> + Send
    where
        Self: Sized,
    {
        async move {
            let mut ticks = tokio::time::interval(heartbeat);
            ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                ticks.tick().await;
                self.maintain_once(heartbeat).await;
            }
        }
    }

    /// Stops the jobs this process drives as it stops ([`LiveJobs::stop_all`]): they end as interrupted with what
    /// they measured stored. Returns how many had not ended within `grace`.
    fn stop_all(&self, grace: Duration) -> impl Future<Output = usize> + Send {
        self.live_jobs().stop_all(grace)
    }
}

/// Why a job (a run, an A/B test, a sweep) could not start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// The plan is invalid.
    #[error("{0}")]
    Invalid(#[from] ValidationError),
    /// The connector could not be read.
    #[error("{0}")]
    Store(#[from] StoreError),
}

/// How long a job waits for its database to come back (a restart, a failover) before it stops: meanwhile
/// finished iterations wait in memory (bounded: the load slows down when the buffer is full).
const STORE_OUTAGE_TOLERANCE: Duration = Duration::from_secs(60);

/// Stores how job `id` ended, trying again while the database is away ([`while_reachable`]); when that fails,
/// marks it failed with a word of why (the cause goes to the log), so it does not stay `running`.
pub async fn store_ending<J: ReportedJob>(
    store: &Store,
    id: J,
    status: RunStatus,
    report: Option<&J::Report>,
    failure: Option<&str>,
    now_ms: i64,
) {
    match while_reachable(|| store.finish_job(id, status, report, failure, now_ms)).await {
        Ok(()) => tracing::info!(kind = J::TABLE, id = %id, status = status.as_str(), "job ended"),
        Err(e) => {
            tracing::error!(kind = J::TABLE, id = %id, error = %e, "storing how the job ended failed");
            let failure = "the report could not be stored; see the server log";
            let _ = store.finish_job::<J>(id, RunStatus::Failed, None, Some(failure), now_ms).await;
        }
    }
}

/// Runs a store operation, trying again while the database is unreachable (a restart, a failover) for up to
/// [`STORE_OUTAGE_TOLERANCE`], waiting 100 ms doubling to 5 s between tries. The operation must be idempotent.
pub async fn while_reachable<T, F, Fut>(mut operation: F) -> Result<T, StoreError>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<T, StoreError>>,
{
    let started = tokio::time::Instant::now();
    let mut wait = Duration::from_millis(100);
    loop {
        match operation().await {
            Err(e) if e.is_transient() && started.elapsed() < STORE_OUTAGE_TOLERANCE => {
                tracing::warn!(error = %e, "the database is unreachable; trying again");
                tokio::time::sleep(wait).await;
                wait = (wait * 2).min(Duration::from_secs(5));
            }
            other => return other,
        }
    }
}

/// A job driven here: whose it is, how to stop it, and what else its kind keeps (a run's live updates).
struct LiveJob<T> {
    workspace: WorkspaceId,
    cancel: CancellationToken,
    extra: T,
}

/// The jobs of one kind this process drives. Cheap to clone.
pub struct LiveJobs<Id, T = ()> {
    live: Arc<Mutex<HashMap<Id, LiveJob<T>>>>,
    instance: Arc<str>,
    /// Cancelled when the process stops: a job then ends as interrupted, not cancelled.
    stopping: CancellationToken,
    /// Told whenever a job is forgotten.
    ended: Arc<Notify>,
}

impl<Id, T> Clone for LiveJobs<Id, T> {
    fn clone(&self) -> Self {
        Self {
            live: Arc::clone(&self.live),
            instance: Arc::clone(&self.instance),
            stopping: self.stopping.clone(),
            ended: Arc::clone(&self.ended),
        }
    }
}

/// A job registered as driven here. Dropping it forgets the job, however its driving ended (finished, failed, or
/// its task stopped), so no ended job stays cancellable or followable here.
pub struct Driving<Id: Eq + Hash, T> {
    id: Id,
    jobs: LiveJobs<Id, T>,
    /// Cancelled when the job is asked to stop.
    pub cancel: CancellationToken,
}

impl<Id: Eq + Hash, T> Drop for Driving<Id, T> {
    fn drop(&mut self) {
        self.jobs.lock().remove(&self.id);
        self.jobs.ended.notify_waiters();
    }
}

impl<Id: Eq + Hash, T> LiveJobs<Id, T> {
    fn lock(&self) -> MutexGuard<'_, HashMap<Id, LiveJob<T>>> {
        // Single inserts and removes: a panic while holding the lock cannot leave the map inconsistent.
        self.live.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl<Id: Copy + Eq + Hash + std::fmt::Display, T> LiveJobs<Id, T> {
    /// No jobs yet, under a new random instance name.
    pub fn new() -> Self {
        Self {
            live: Arc::default(),
            instance: uuid::Uuid::new_v4().to_string().into(),
            stopping: CancellationToken::new(),
            ended: Arc::default(),
        }
    }

    /// Whether the process is stopping: a job cancelled now was stopped by the server, not by its user, and ends
    /// as interrupted (what it measured kept).
    pub fn stopping(&self) -> bool {
        self.stopping.is_cancelled()
    }

    /// Stops every job driven here as the process stops: each is cancelled (knowing it is the server stopping)
    /// and waited for up to `grace` while it stores what it measured and closes. Returns how many had not ended
    /// by then (a restart marks them interrupted, as after a crash).
    pub async fn stop_all(&self, grace: Duration) -> usize {
        self.stopping.cancel();
        for job in self.lock().values() {
            job.cancel.cancel();
        }
        let deadline = tokio::time::Instant::now() + grace;
        loop {
            let ended = self.ended.notified();
            let left = self.lock().len();
            if left == 0 || tokio::time::timeout_at(deadline, ended).await.is_err() {
                return self.lock().len();
            }
        }
    }

    /// How a job whose `cancel` fired ended: interrupted when this process is stopping (what it measured is
    /// kept), cancelled when its user asked; `None` when it was not stopped.
    pub fn stop_status(&self, cancel: &CancellationToken) -> Option<RunStatus> {
        match (cancel.is_cancelled(), self.stopping()) {
            (false, _) => None,
            (true, true) => Some(RunStatus::Interrupted),
            (true, false) => Some(RunStatus::Cancelled),
        }
    }

    /// This process, as recorded in the jobs it drives.
    pub fn instance(&self) -> &str {
        &self.instance
    }

    /// Registers job `id` of `workspace` as driven here until the returned value is dropped.
    pub fn drive(&self, id: Id, workspace: WorkspaceId, extra: T) -> Driving<Id, T> {
        let cancel = CancellationToken::new();
        self.lock().insert(id, LiveJob { workspace, cancel: cancel.clone(), extra });
        Driving { id, jobs: self.clone(), cancel }
    }

    /// `read` of what a job of `workspace` driven here keeps; `None` when it is not driven here.
    pub fn read<R>(&self, workspace: WorkspaceId, id: Id, read: impl FnOnce(&T) -> R) -> Option<R> {
        self.lock().get(&id).filter(|job| job.workspace == workspace).map(|job| read(&job.extra))
    }

    /// Asks a running job of `workspace` to stop: at once when it is driven here, otherwise through the database.
    /// `false` when it is not running.
    pub async fn cancel<R: JobRecords<Id>>(
        &self,
        records: &R,
        workspace: WorkspaceId,
        id: Id,
    ) -> Result<bool, StoreError> {
        let here = self.lock().get(&id).filter(|job| job.workspace == workspace).map(|job| job.cancel.clone());
        match here {
            Some(cancel) => {
                cancel.cancel();
                Ok(true)
            }
            None => records.request_cancel(workspace, id).await,
        }
    }

    /// One upkeep round at `now_ms`: renews the heartbeat of the jobs driven here, stops those cancelled through
    /// another process, and marks interrupted the jobs of processes silent for [`MISSED_HEARTBEATS`] heartbeats.
    pub async fn upkeep<R: JobRecords<Id>>(&self, records: &R, heartbeat: Duration, now_ms: i64) {
        match records.heartbeat(&self.instance, now_ms).await {
            Ok(cancelled) => {
                let live = self.lock();
                for id in cancelled {
                    if let Some(job) = live.get(&id) {
                        job.cancel.cancel();
                    }
                }
            }
            Err(e) => tracing::error!(kind = R::KIND, error = %e, "renewing the heartbeat of running jobs failed"),
        }
        match records.interrupt_orphaned(orphaned_before(now_ms, heartbeat), now_ms).await {
            Ok(0) => {}
            Ok(n) => {
                tracing::warn!(
                    kind = R::KIND,
                    interrupted = n,
                    "jobs whose server process went silent were interrupted"
                );
            }
            Err(e) => tracing::error!(kind = R::KIND, error = %e, "looking for orphaned jobs failed"),
        }
    }
}

impl<Id: Copy + Eq + Hash + std::fmt::Display, T> Default for LiveJobs<Id, T> {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A row of the table below.
    struct Row {
        workspace: WorkspaceId,
        owner: String,
        heartbeat_ms: i64,
        cancel_requested: bool,
        running: bool,
    }

    impl Row {
        fn running(workspace: WorkspaceId, owner: &str) -> Self {
            Self { workspace, owner: owner.to_string(), heartbeat_ms: 0, cancel_requested: false, running: true }
        }
    }

    /// The database side of a kind of job, as a table in memory.
    #[derive(Default)]
    struct Table {
        rows: Mutex<HashMap<u32, Row>>,
    }

    impl Table {
        fn insert(&self, id: u32, row: Row) {
            self.rows.lock().unwrap().insert(id, row);
        }

        fn running(&self) -> Vec<u32> {
            self.rows.lock().unwrap().iter().filter(|(_, row)| row.running).map(|(id, _)| *id).collect()
        }
    }

    impl JobRecords<u32> for Table {
        const KIND: &'static str = "tests";

        async fn heartbeat(&self, owner: &str, now_ms: i64) -> Result<Vec<u32>, StoreError> {
            let mut rows = self.rows.lock().unwrap();
            let mut cancelled = Vec::new();
            for (id, row) in rows.iter_mut().filter(|(_, row)| row.owner == owner && row.running) {
                row.heartbeat_ms = now_ms;
                if row.cancel_requested {
                    cancelled.push(*id);
                }
            }
            Ok(cancelled)
        }

        async fn request_cancel(&self, workspace: WorkspaceId, id: u32) -> Result<bool, StoreError> {
            let mut rows = self.rows.lock().unwrap();
            let row = rows.get_mut(&id).filter(|row| row.workspace == workspace).ok_or(StoreError::NotFound)?;
            row.cancel_requested |= row.running;
            Ok(row.running)
        }

        async fn interrupt_orphaned(&self, silent_since_ms: i64, _now_ms: i64) -> Result<u64, StoreError> {
            let mut rows = self.rows.lock().unwrap();
            let mut n = 0;
            for row in rows.values_mut().filter(|row| row.running && row.heartbeat_ms < silent_since_ms) {
                row.running = false;
                n += 1;
            }
            Ok(n)
        }
    }

    const HEARTBEAT: Duration = Duration::from_secs(5);

    #[tokio::test]
    async fn a_cancel_reaches_the_job_here_at_once_and_elsewhere_at_the_drivers_next_heartbeat() {
        let (mine, theirs) = (WorkspaceId::new_random(), WorkspaceId::new_random());
        let table = Table::default();
        let (here, there) = (LiveJobs::<u32>::new(), LiveJobs::<u32>::new());
        let job = there.drive(7, mine, ());
        table.insert(7, Row::running(mine, there.instance()));

        assert!(
            matches!(here.cancel(&table, theirs, 7).await, Err(StoreError::NotFound)),
            "another workspace's job is not found"
        );
        assert!(here.cancel(&table, mine, 7).await.unwrap(), "asked through the database");
        assert!(!job.cancel.is_cancelled(), "the driver has not looked yet");
        there.upkeep(&table, HEARTBEAT, 1_000).await;
        assert!(job.cancel.is_cancelled(), "its next heartbeat stops it");

        let local = here.drive(8, mine, ());
        assert!(here.cancel(&table, mine, 8).await.unwrap());
        assert!(local.cancel.is_cancelled(), "at once, without the database");
    }

    #[tokio::test]
    async fn a_silent_driver_s_jobs_are_interrupted_after_the_missed_heartbeats_and_a_live_one_s_are_not() {
        let workspace = WorkspaceId::new_random();
        let table = Table::default();
        let (alive, gone) = (LiveJobs::<u32>::new(), LiveJobs::<u32>::new());
        let _kept = alive.drive(1, workspace, ());
        table.insert(1, Row::running(workspace, alive.instance()));
        table.insert(2, Row::running(workspace, gone.instance()));
        let limit = i64::try_from((HEARTBEAT * MISSED_HEARTBEATS).as_millis()).unwrap();
        alive.upkeep(&table, HEARTBEAT, limit).await;
        assert_eq!(table.running().len(), 2, "exactly the limit is not yet silent");
        alive.upkeep(&table, HEARTBEAT, limit + 1).await;
        assert_eq!(table.running(), [1], "the job whose driver renewed its heartbeat runs on");
    }

    #[tokio::test]
    async fn stopping_cancels_every_job_as_the_server_s_doing_and_waits_for_them_to_end() {
        let workspace = WorkspaceId::new_random();
        let jobs = LiveJobs::<u32>::new();
        for id in 0..3 {
            let job = jobs.drive(id, workspace, ());
            let seen_stopping = jobs.clone();
            tokio::spawn(async move {
                job.cancel.cancelled().await;
                assert!(seen_stopping.stopping(), "the job knows it is the server stopping");
                // Storing what it measured takes a moment; the job is forgotten when `job` is dropped.
                tokio::time::sleep(Duration::from_millis(20 * u64::from(id))).await;
                drop(job);
            });
        }
        assert!(!jobs.stopping());
        assert_eq!(jobs.stop_all(Duration::from_secs(10)).await, 0, "every job ended within the grace");
        let stuck = jobs.drive(9, workspace, ());
        assert_eq!(jobs.stop_all(Duration::from_millis(30)).await, 1, "one that does not end is counted");
        drop(stuck);
    }

    #[test]
    fn an_ended_job_is_forgotten_and_what_it_kept_is_read_only_by_its_workspace() {
        let (mine, theirs) = (WorkspaceId::new_random(), WorkspaceId::new_random());
        let jobs = LiveJobs::<u32, &str>::new();
        let job = jobs.drive(3, mine, "updates");
        assert_eq!(jobs.read(mine, 3, |kept| kept.len()), Some(7));
        assert_eq!(jobs.read(theirs, 3, |kept| kept.len()), None);
        drop(job);
        assert_eq!(jobs.read(mine, 3, |kept| kept.len()), None, "no ended job stays followable");
    }
}
