//! Spec Lab's A/B tests end to end in the server: validate the plan and both connectors, record the test, drive it
//! (`speclab::run_ab`) in the background while its progress and heartbeat reach the database once a second, and
//! store its report when it ends — completed, cancelled (what was measured is kept) or failed. Replicas share
//! tests as they share runs: a cancel reaches the driving process through the database, and a test whose process
//! went silent is marked interrupted.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

use super::{run_ab, AbArm, AbProgress, AbWorkload};
use crate::clock::Clock;
use crate::engine::HttpClient;
use crate::jobs::{store_ending, JobOwner, LiveJobs, StartError};
use crate::lab::judge::ab_report;
use crate::lab::model::{AbTestInput, AbTestSummary};
use crate::lab::report::AbEndpoint;
use crate::lab::store::NewAbTest;
use crate::model::{AbTestId, RunStatus, ValidationError, WorkspaceId};
use crate::secrets::SecretBox;
use crate::store::Store;
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
        self.store.resolve_workload(workspace, &mut plan_input).await?;
        let plan = plan_input.validate()?;
        if let Some(workload) = &plan.workload {
            workload.refuse_a_file_on_a_server()?;
        }
        let uploaded = self.store.uploaded_text(workspace, plan.workload.as_ref()).await?;
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
            manager.drive(id, plan, (endpoints, arms), uploaded, driving.cancel.clone(), started_ms).await;
            drop(driving);
        });
        Ok(summary)
    }

    async fn drive(
        &self,
        id: AbTestId,
        plan: crate::lab::model::AbPlan,
        (endpoints, arms): ([AbEndpoint; 2], [AbArm; 2]),
        uploaded: Option<Arc<str>>,
        cancel: CancellationToken,
        started_ms: i64,
    ) {
        // A workload's tokenizer is found before anything is sent: without it the test cannot make its requests.
        let workload = match AbWorkload::of(&self.http, &plan, &arms, None, uploaded).await {
            Ok(workload) => workload,
            Err(e) => {
                let failure = format!("the workload's requests could not be made: {e}");
                store_ending(&self.store, id, RunStatus::Failed, None, Some(&failure), self.clock.now_ms()).await;
                return;
            }
        };
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
        let cells = run_ab(&self.http, &plan, &arms, workload.as_ref(), &cancel, &mut progress).await;
        finished.cancel();
        let _ = writer.await;
        let tokenizer = workload.as_ref().and_then(AbWorkload::tokenizer);
        let report = ab_report(&plan, endpoints, started_ms, &cells, tokenizer.as_ref());
        let status = self.jobs.stop_status(&cancel).unwrap_or(RunStatus::Completed);
        let now = self.clock.now_ms();
        let _ = self.store.set_ab_progress(id, done.load(Ordering::Relaxed), now).await;
        store_ending(&self.store, id, status, Some(&report), None, now).await;
    }
}

impl JobOwner for AbManager {
    type Id = AbTestId;
    type Kept = ();

    fn live_jobs(&self) -> &LiveJobs<AbTestId, ()> {
        &self.jobs
    }

    fn store(&self) -> &Store {
        &self.store
    }

    fn now_ms(&self) -> i64 {
        self.clock.now_ms()
    }
}
