//! Runs end to end: validate a plan, start the driver, store each batch of finished iterations as it arrives,
//! fan progress out to live subscribers, and close the run (completed, cancelled or failed).
//!
//! Several server processes may share one database. Each run records the process driving it (`owner`), which
//! renews a heartbeat while it runs; a cancel asked of another process reaches the owner through the database, and
//! a run whose owner went silent is marked interrupted by whichever process notices first.

use std::sync::Arc;
use tokio::sync::broadcast;
use tokio_util::sync::CancellationToken;

use super::execute::{execute, seed_from, BatchSink, Execution, SinkError};
use crate::clock::Clock;
use crate::engine::{HttpClient, RequestTarget};
use crate::jobs::{while_reachable, Driving, JobOwner, LiveJobs, StartError};
use crate::model::{
    ConnectorId, IterationRecord, LivePoint, Measurement, RunHeadline, RunId, RunPlanInput, RunProgress, RunStatus,
    RunUpdate, RunView, WorkspaceId, WorkspaceQuota,
};
use crate::outbound::Reach;
use crate::runs::store::{PromptsKept, RunEnding};
use crate::secrets::SecretBox;
use crate::store::Store;
use crate::targets::{open_target, refuse_unreachable, workspace_reach};

/// Where a run sends its requests, and the engine a probe found there (whose metrics the run then records).
struct Target {
    request: RequestTarget,
    server_kind: Option<crate::model::ServerKind>,
}

/// A run driven here: registered while it runs (dropping it forgets the run), and where its updates go.
struct LiveRun {
    driving: Driving<RunId, broadcast::Sender<RunUpdate>>,
    updates: broadcast::Sender<RunUpdate>,
    /// The text of the uploaded dataset its workload sends, read from the database when the run was recorded.
    uploaded: Option<Arc<str>>,
}

/// Starts, follows and cancels runs. Cheap to clone.
#[derive(Clone)]
pub struct RunManager {
    store: Store,
    sealer: SecretBox,
    http: HttpClient,
    clock: Arc<dyn Clock>,
    /// The runs this process drives, and their live updates.
    jobs: LiveJobs<RunId, broadcast::Sender<RunUpdate>>,
    /// What an untrusted workspace may run and keep; `None`: no limits (the command line, test rigs).
    quota: Option<WorkspaceQuota>,
}

impl RunManager {
    /// A manager over the shared store, secrets, client and clock, with a new random instance name.
    pub fn new(store: Store, sealer: SecretBox, http: HttpClient, clock: Arc<dyn Clock>) -> Self {
        Self { store, sealer, http, clock, jobs: LiveJobs::new(), quota: None }
    }

    /// The same, holding workspaces other than the install owner's and trusted wallets' to `quota`.
    pub fn with_quota(self, quota: WorkspaceQuota) -> Self {
        Self { quota: Some(quota), ..self }
    }

    /// Validates `input`, records the run and starts it in the background.
    pub async fn start(&self, workspace: WorkspaceId, input: RunPlanInput) -> Result<RunView, StartError> {
        let (view, target, live) = self.record(workspace, input).await?;
        let manager = self.clone();
        let run = view.clone();
        tokio::spawn(async move {
            manager.execute(run, target, live).await;
        });
        Ok(view)
    }

    /// Validates `input`, records the run and drives it to its end (Guard's scheduled runs); the run is live on
    /// its page meanwhile like any other. Returns the run as it ended.
    pub async fn run_to_end(&self, workspace: WorkspaceId, input: RunPlanInput) -> Result<RunView, StartError> {
        self.run_to_end_unless(workspace, input, &CancellationToken::new(), None).await
    }

    /// [`Self::run_to_end`], cancelled (what was measured is kept) when `stop` is, telling `started` the run's id
    /// once it is recorded: a sweep's level.
    pub async fn run_to_end_unless(
        &self,
        workspace: WorkspaceId,
        input: RunPlanInput,
        stop: &CancellationToken,
        started: Option<tokio::sync::oneshot::Sender<RunId>>,
    ) -> Result<RunView, StartError> {
        let (view, target, live) = self.record(workspace, input).await?;
        if let Some(started) = started {
            // Nobody listening any more is not this run's business.
            let _ = started.send(view.id);
        }
        let (stop, cancel_run) = (stop.clone(), live.driving.cancel.clone());
        let link = tokio::spawn(async move {
            stop.cancelled().await;
            cancel_run.cancel();
        });
        self.execute(view.clone(), target, live).await;
        link.abort();
        Ok(self.store.get_run(workspace, view.id).await?)
    }

    /// Fails when `workspace` may not reach the connector's address (the address policy, `crate::outbound`): what
    /// starts runs later (a sweep's levels) says so before it begins.
    pub async fn check_reachable(&self, workspace: WorkspaceId, connector: ConnectorId) -> Result<(), StartError> {
        let (_, target) = open_target(&self.store, &self.sealer, self.http.addresses(), workspace, connector).await?;
        Ok(refuse_unreachable(&self.http, &target, "connectorId").await?)
    }

    async fn record(
        &self,
        workspace: WorkspaceId,
        mut input: RunPlanInput,
    ) -> Result<(RunView, Target, LiveRun), StartError> {
        let (connector, target) =
            open_target(&self.store, &self.sealer, self.http.addresses(), workspace, input.connector_id).await?;
        refuse_unreachable(&self.http, &target, "connectorId").await?;
        let target = Target { request: target, server_kind: connector.server_kind };
        self.store.resolve_workload(workspace, &mut input).await?;
        let plan = input.validate(&connector.model)?;
        if let Some(workload) = &plan.workload {
            workload.refuse_a_file_on_a_server()?;
        }
        let uploaded = self.store.uploaded_text(workspace, plan.workload.as_ref()).await?;
        let id = RunId::new_random();
        let quota = match self.quota {
            Some(quota)
                if workspace_reach(&self.store, self.http.addresses(), workspace).await? == Reach::PublicOnly =>
            {
                Some(quota)
            }
            _ => None,
        };
        let now = self.clock.now_ms();
        let owned_by = (&connector, self.jobs.instance());
        let view = self.store.create_run_within(workspace, id, &plan, owned_by, quota.as_ref(), now).await?;
        let updates = broadcast::channel(256).0;
        let live = LiveRun { driving: self.jobs.drive(id, workspace, updates.clone()), updates, uploaded };
        Ok((view, target, live))
    }

    /// Live updates of a running run of `workspace`; `None` when it is not running here.
    pub fn subscribe(&self, workspace: WorkspaceId, id: RunId) -> Option<broadcast::Receiver<RunUpdate>> {
        self.jobs.read(workspace, id, broadcast::Sender::subscribe)
    }

    async fn execute(&self, run: RunView, target: Target, live: LiveRun) {
        let execution = Execution {
            plan: Arc::new(run.plan.clone()),
            target: target.request.clone(),
            model: run.model.clone(),
            client: self.http.clone(),
            seed: seed_from(&run.id.0),
            cancel: live.driving.cancel.clone(),
            prices: (run.input_price_per_mtok, run.output_price_per_mtok),
            // A server reads no path a request names.
            tokenizer_file: None,
            uploaded: live.uploaded.clone(),
        };
        crate::telemetry::counters().run_started();
        let mut sink = StoreAndBroadcast { manager: self, run: &run, live: &live, done: 0, errors: 0 };
        // A server a Spec Lab probe identified is read before, during and after the run (its own metrics).
        let outcome = match target.server_kind {
            Some(kind) => {
                let work = execute(execution, &mut sink);
                let (outcome, server) = crate::probe::record_during(&self.http, &target.request, kind, work).await;
                if let Some(server) = server {
                    if let Err(e) = while_reachable(|| self.store.set_run_server_metrics(run.id, &server)).await {
                        tracing::error!(run = %run.id, error = %e, "storing the server's metrics failed");
                    }
                }
                outcome
            }
            None => execute(execution, &mut sink).await,
        };
        let (done, errors) = (sink.done, sink.errors);
        if let Some(used) = &outcome.prompt_tokenizer {
            if let Err(e) = while_reachable(|| self.store.set_run_prompt_tokenizer(run.id, used)).await {
                tracing::error!(run = %run.id, error = %e, "storing the tokenizer the prompts were made with failed");
            }
        }
        let status = match &outcome.failure {
            Some(_) => RunStatus::Failed,
            None => self.jobs.stop_status(&live.driving.cancel).unwrap_or(RunStatus::Completed),
        };
        let headline = self.headline(&run).await;
        let finished_at = self.clock.now_ms();
        let ending = RunEnding {
            status,
            failure: outcome.failure,
            stream_options_rejected: outcome.stream_options_rejected,
            opened_ahead: outcome.opened_ahead,
            client_load: outcome.client_load,
            fingerprint: outcome.fingerprint,
            headline,
        };
        let closed = while_reachable(|| self.store.finish_run(run.id, &ending, finished_at)).await;
        if let Err(e) = closed {
            tracing::error!(run = %run.id, error = %e, "closing the run failed");
        }
        let _ = live.updates.send(RunUpdate { progress: self.progress(&run, status, done, errors), points: vec![] });
        crate::telemetry::counters().run_finished(status.as_str());
        tracing::info!(run = %run.id, status = status.as_str(), done, errors, "run finished");
    }

    /// The headline figures of what `run` recorded, read back once at its end (lists show them without reading
    /// every iteration); `None` when it measured nothing or reading failed (the run's report still has them all).
    async fn headline(&self, run: &RunView) -> Option<RunHeadline> {
        let read = || async {
            let workspace = self.store.run_workspace(run.id).await?;
            self.store.run_iterations(workspace, run.id).await
        };
        match while_reachable(read).await {
            Ok(records) => Some(crate::stats::summarize(&records).headline()).filter(|h| h.measured > 0),
            Err(e) => {
                tracing::warn!(run = %run.id, error = %e, "reading the run back for its headline failed");
                None
            }
        }
    }

    fn progress(&self, run: &RunView, status: RunStatus, done: u64, errors: u64) -> RunProgress {
        let elapsed = u64::try_from(self.clock.now_ms() - run.created_at_ms).unwrap_or(0);
        RunProgress::new(status, run.total_requests, done, errors, elapsed).limited(run.plan.duration_ms)
    }
}

/// The server's sink: store each batch, then tell live subscribers.
struct StoreAndBroadcast<'a> {
    manager: &'a RunManager,
    run: &'a RunView,
    live: &'a LiveRun,
    done: u64,
    errors: u64,
}

impl BatchSink for StoreAndBroadcast<'_> {
    async fn accept(&mut self, batch: Vec<(IterationRecord, Measurement)>) -> Result<(), SinkError> {
        let started = std::time::Instant::now();
        // Idempotent: a batch whose commit went through unacknowledged is not stored twice.
        if let Err(e) = while_reachable(|| {
            self.manager.store.insert_iterations(self.run.id, &batch, PromptsKept::of(&self.run.plan))
        })
        .await
        {
            tracing::error!(run = %self.run.id, error = %e, "storing iterations failed; stopping the run");
            return Err(SinkError::Store(e));
        }
        // What a crash can lose is what finishes during two writes (docs/RELIABILITY.md): this is their length.
        tracing::debug!(
            run = %self.run.id,
            rows = batch.len(),
            write_ms = started.elapsed().as_secs_f64() * 1e3,
            "iterations stored"
        );
        let errors = batch.iter().filter(|(r, _)| r.error.is_some()).count() as u64;
        crate::telemetry::counters().requests_measured(batch.len() as u64, errors);
        self.done += batch.len() as u64;
        self.errors += errors;
        let points = batch.iter().map(|(r, _)| LivePoint::from(r)).collect();
        let progress = self.manager.progress(self.run, RunStatus::Running, self.done, self.errors);
        // No subscriber is fine: the page may not be open.
        let _ = self.live.updates.send(RunUpdate { progress, points });
        Ok(())
    }
}

impl JobOwner for RunManager {
    type Id = RunId;
    type Kept = broadcast::Sender<RunUpdate>;

    fn live_jobs(&self) -> &LiveJobs<RunId, broadcast::Sender<RunUpdate>> {
        &self.jobs
    }

    fn store(&self) -> &Store {
        &self.store
    }

    fn now_ms(&self) -> i64 {
        self.clock.now_ms()
    }
}
