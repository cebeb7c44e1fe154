//! Spec Lab's A/B tests end to end in the server: validate the plan and both connectors, record the test, drive it
//! (`speclab::run_ab`) in the background while its progress and heartbeat reach the database once a second, and
//! store its report when it ends — completed, cancelled (what was measured is kept) or failed. Replicas share
//! tests as they share runs: a cancel reaches the driving process through the database, and a test whose process
//! went silent is marked interrupted.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

use super::manager::{every, while_reachable, StartError};
use crate::clock::Clock;
use crate::engine::HttpClient;
use crate::jobs::{JobRecords, LiveJobs};
use crate::model::{AbTestId, AbTestInput, AbTestSummary, RunStatus, ValidationError, WorkspaceId};
use crate::report::AbEndpoint;
use crate::secrets::SecretBox;
use crate::speclab::{ab_report, run_ab, AbArm, AbProgress};
use crate::store::{NewAbTest, Store, StoreError};
use crate::targets::open_target;

/// How often a running test's progress is written.
const PROGRESS_EVERY: Duration = Duration::from_secs(1);

/// Starts, cancels and looks after A/B tests. Cheap to clone.
#[derive(Clone)]
pub struct AbManager {
    store: Store,
    sealer: SecretBox,
    http: HttpClient,
    clock: Arc<dyn Clock>,
    /// The tests this process drives.
    jobs: LiveJobs<AbTestId>,
}

impl AbManager {
    /// A manager over the shared store, secrets, client and clock, with a new random instance name.
    pub fn new(store: Store, sealer: SecretBox, http: HttpClient, clock: Arc<dyn Clock>) -> Self {
        Self { store, sealer, http, clock, jobs: LiveJobs::new() }
    }

    /// Validates `input` and both connectors, records the test and starts it in the background.
    pub async fn start(&self, workspace: WorkspaceId, input: AbTestInput) -> Result<AbTestSummary, StartError> {
        if input.baseline_connector_id == input.candidate_connector_id {
            return Err(ValidationError::new(
                "candidateConnectorId",
                "pick another connector than the baseline: an A/B test compares two endpoints",
            )
            .into());
        }
        let mut arms = Vec::with_capacity(2);
        let mut endpoints = Vec::with_capacity(2);
        for id in [input.baseline_connector_id, input.candidate_connector_id] {
            let (connector, target) =
                open_target(&self.store, &self.sealer, self.http.addresses(), workspace, id).await?;
            let field = if id == input.baseline_connector_id { "baselineConnectorId" } else { "candidateConnectorId" };
            crate::targets::refuse_unreachable(&self.http, &target, field).await?;
            endpoints.push(AbEndpoint {
                name: connector.name.clone(),
                base_url: connector.base_url.clone(),
                model: connector.model.clone(),
                server_kind: connector.server_kind,
            });
            arms.push(AbArm { target, model: connector.model, server_kind: connector.server_kind });
        }
        let (Ok(arms), Ok(endpoints)) = (<[AbArm; 2]>::try_from(arms), <[AbEndpoint; 2]>::try_from(endpoints)) else {
            unreachable!("two connectors make two arms")
        };
        let mut plan_input = input.plan;
        plan_input.title = plan_input
            .title
            .filter(|t| !t.trim().is_empty())
            .or_else(|| Some(format!("{} vs {}", endpoints[0].name, endpoints[1].name)));
        let plan = plan_input.validate()?;
        let id = AbTestId::new_random();
        let test = NewAbTest {
            id,
            plan: &plan,
            arms: [
                (input.baseline_connector_id, endpoints[0].name.as_str()),
                (input.candidate_connector_id, endpoints[1].name.as_str()),
            ],
            owner: self.jobs.instance(),
        };
        let summary = self.store.create_ab_test(workspace, &test, self.clock.now_ms()).await?;
        let driving = self.jobs.drive(id, workspace, ());
        let manager = self.clone();
        let started_ms = summary.created_at_ms;
        tokio::spawn(async move {
            manager.drive(id, plan, endpoints, arms, driving.cancel.clone(), started_ms).await;
            drop(driving);
        });
        Ok(summary)
    }

    async fn drive(
        &self,
        id: AbTestId,
        plan: crate::model::AbPlan,
        endpoints: [AbEndpoint; 2],
        arms: [AbArm; 2],
        cancel: CancellationToken,
        started_ms: i64,
    ) {
        let done = Arc::new(AtomicU64::new(0));
        let finished = CancellationToken::new();
        let writer = tokio::spawn({
            let (store, clock, done, finished) =
                (self.store.clone(), Arc::clone(&self.clock), done.clone(), finished.clone());
            async move {
                let mut written = 0;
                loop {
                    tokio::select! {
                        () = finished.cancelled() => break,
                        () = tokio::time::sleep(PROGRESS_EVERY) => {}
                    }
                    let now = done.load(Ordering::Relaxed);
                    if now != written {
                        if let Err(e) = store.set_ab_progress(id, now, clock.now_ms()).await {
                            tracing::warn!(ab_test = %id, error = %e, "writing the A/B test's progress failed");
                        }
                        written = now;
                    }
                }
            }
        });
        let mut progress = |p: AbProgress| done.store(p.done, Ordering::Relaxed);
        let cells = run_ab(&self.http, &plan, &arms, &cancel, &mut progress).await;
        finished.cancel();
        let _ = writer.await;
        let report = ab_report(&plan, endpoints, started_ms, &cells);
        let status = match (cancel.is_cancelled(), self.jobs.stopping()) {
            (true, true) => RunStatus::Interrupted,
            (true, false) => RunStatus::Cancelled,
            (false, _) => RunStatus::Completed,
        };
        let now = self.clock.now_ms();
        let _ = self.store.set_ab_progress(id, done.load(Ordering::Relaxed), now).await;
        let stored = while_reachable(|| self.store.finish_ab_test(id, status, Some(&report), None, now)).await;
        if let Err(e) = stored {
            tracing::error!(ab_test = %id, error = %e, "storing the A/B test's report failed");
            let failure = "the report could not be stored; see the server log";
            let _ = self.store.finish_ab_test(id, RunStatus::Failed, None, Some(failure), now).await;
        }
        tracing::info!(ab_test = %id, status = status.as_str(), cells = cells.len(), "A/B test finished");
    }

    /// Asks a running test of `workspace` to stop (what was measured is kept): at once when this process drives
    /// it, otherwise through the database. `false` when it is not running.
    pub async fn cancel(&self, workspace: WorkspaceId, id: AbTestId) -> Result<bool, StoreError> {
        self.jobs.cancel(&AbTestRecords(&self.store), workspace, id).await
    }

    /// Stops the tests this process drives as it stops: they end as interrupted with what they measured stored.
    /// Returns how many had not ended within `grace`.
    pub async fn stop_all(&self, grace: Duration) -> usize {
        self.jobs.stop_all(grace).await
    }

    /// Every `heartbeat`: renews this process's tests, stops those cancelled through another process, and marks
    /// interrupted the tests of processes silent for several heartbeats. Runs until the process ends.
    pub async fn maintain(self, heartbeat: Duration) {
        every(heartbeat, || self.maintain_once(heartbeat)).await;
    }

    /// One round of [`Self::maintain`].
    pub async fn maintain_once(&self, heartbeat: Duration) {
        self.jobs.upkeep(&AbTestRecords(&self.store), heartbeat, self.clock.now_ms()).await;
    }
}

/// A/B tests as jobs: their rows in the store.
struct AbTestRecords<'a>(&'a Store);

impl JobRecords for AbTestRecords<'_> {
    type Id = AbTestId;
    const KIND: &'static str = "A/B tests";

    async fn heartbeat(&self, owner: &str, now_ms: i64) -> Result<Vec<AbTestId>, StoreError> {
        self.0.heartbeat_ab_tests(owner, now_ms).await
    }

    async fn request_cancel(&self, workspace: WorkspaceId, id: AbTestId) -> Result<bool, StoreError> {
        self.0.request_ab_cancel(workspace, id).await
    }

    async fn interrupt_orphaned(&self, silent_since_ms: i64, now_ms: i64) -> Result<u64, StoreError> {
        self.0.interrupt_orphaned_ab_tests(silent_since_ms, now_ms).await
    }
}
