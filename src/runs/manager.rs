//! Runs end to end: validate a plan, start the driver, store each batch of finished iterations as it arrives,
//! fan progress out to live subscribers, and close the run (completed, cancelled or failed).

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{broadcast, mpsc};
use tokio_util::sync::CancellationToken;

use super::driver::{drive, Finished};
use crate::clock::Clock;
use crate::engine::{
    measure, rejects_stream_options, Call, ChatMessage, ChatRequest, HttpClient, RequestTarget, StreamOptions,
};
use crate::model::{
    IterationRecord, LivePoint, RunId, RunPlan, RunPlanInput, RunProgress, RunStatus, RunUpdate, RunView,
    ValidationError, WorkspaceId,
};
use crate::secrets::SecretBox;
use crate::store::{Store, StoreError};

/// Finished iterations written per transaction at most.
const BATCH: usize = 256;
/// Finished iterations waiting to be written at most; a slower database slows the run instead of growing memory.
const PENDING: usize = 4_096;

/// Why a run could not start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// The plan is invalid.
    #[error("{0}")]
    Invalid(#[from] ValidationError),
    /// The connector could not be read.
    #[error("{0}")]
    Store(#[from] StoreError),
}

/// A run in progress: how to stop it and how to follow it.
#[derive(Clone)]
struct LiveRun {
    workspace: WorkspaceId,
    cancel: CancellationToken,
    updates: broadcast::Sender<RunUpdate>,
}

/// Starts, follows and cancels runs. Cheap to clone.
#[derive(Clone)]
pub struct RunManager {
    store: Store,
    sealer: SecretBox,
    http: HttpClient,
    clock: Arc<dyn Clock>,
    live: Arc<Mutex<HashMap<RunId, LiveRun>>>,
}

impl RunManager {
    /// A manager over the shared store, secrets, client and clock.
    pub fn new(store: Store, sealer: SecretBox, http: HttpClient, clock: Arc<dyn Clock>) -> Self {
        Self { store, sealer, http, clock, live: Arc::default() }
    }

    fn live_runs(&self) -> std::sync::MutexGuard<'_, HashMap<RunId, LiveRun>> {
        // A panic while holding this lock cannot leave the map inconsistent (single inserts and removes).
        self.live.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Validates `input`, records the run and starts it in the background.
    pub async fn start(&self, workspace: WorkspaceId, input: RunPlanInput) -> Result<RunView, StartError> {
        let stored = self.store.open_connector(workspace, input.connector_id, &self.sealer).await?;
        let plan = input.validate(&stored.connector.model)?;
        let id = RunId::new_random();
        let view = self.store.create_run(workspace, id, &plan, &stored.connector, self.clock.now_ms()).await?;
        let target = RequestTarget {
            base_url: stored.base_url,
            api_key: stored.credentials.api_key,
            headers: stored.credentials.headers,
        };
        let live = LiveRun { workspace, cancel: CancellationToken::new(), updates: broadcast::channel(256).0 };
        self.live_runs().insert(id, live.clone());
        let manager = self.clone();
        let run = view.clone();
        tokio::spawn(async move {
            manager.execute(run, target, live).await;
            manager.live_runs().remove(&id);
        });
        Ok(view)
    }

    /// Asks a running run of `workspace` to stop; `false` when it is not running here.
    pub fn cancel(&self, workspace: WorkspaceId, id: RunId) -> bool {
        match self.live_runs().get(&id) {
            Some(live) if live.workspace == workspace => {
                live.cancel.cancel();
                true
            }
            _ => false,
        }
    }

    /// Live updates of a running run of `workspace`; `None` when it is not running here.
    pub fn subscribe(&self, workspace: WorkspaceId, id: RunId) -> Option<broadcast::Receiver<RunUpdate>> {
        self.live_runs().get(&id).filter(|l| l.workspace == workspace).map(|l| l.updates.subscribe())
    }

    async fn execute(&self, run: RunView, target: RequestTarget, live: LiveRun) {
        let plan = Arc::new(run.plan.clone());
        let rejected = Arc::new(AtomicBool::new(false));
        let (tx, mut rx) = mpsc::channel::<Finished>(PENDING);
        let seed = u64::from_le_bytes(run.id.0.as_bytes()[..8].try_into().unwrap_or_default());
        let executor = {
            let (plan, rejected, client) = (Arc::clone(&plan), Arc::clone(&rejected), self.http.clone());
            let (target, model) = (Arc::new(target), Arc::new(run.model.clone()));
            move |job: crate::model::Job, intended| {
                let (plan, rejected, client, target, model) =
                    (Arc::clone(&plan), Arc::clone(&rejected), client.clone(), Arc::clone(&target), Arc::clone(&model));
                async move {
                    let mut request =
                        chat_request(&plan, &model, job.prompt_index as usize, !rejected.load(Ordering::Relaxed));
                    let timeout = Duration::from_millis(plan.timeout_ms);
                    let first = measure(&client, Call { target: &target, request: &request, timeout, intended }).await;
                    if request.stream_options.is_none() || !rejects_stream_options(&first) {
                        return first;
                    }
                    // Remembered for the rest of the run: later requests go without the field at once.
                    rejected.store(true, Ordering::Relaxed);
                    request.stream_options = None;
                    measure(&client, Call { target: &target, request: &request, timeout, intended }).await
                }
            }
        };
        let driver = tokio::spawn(drive(plan.jobs(), plan.mode, seed, live.cancel.clone(), tx, executor));

        let (mut done, mut errors) = (0u64, 0u64);
        let mut failure = None;
        let mut batch = Vec::with_capacity(BATCH);
        while rx.recv_many(&mut batch, BATCH).await > 0 {
            let rows: Vec<(IterationRecord, _)> = batch
                .drain(..)
                .map(|f| {
                    let prompt = &plan.prompts[f.job.prompt_index as usize];
                    let record = IterationRecord::from_measurement(
                        prompt,
                        f.job,
                        &f.measurement,
                        run.input_price_per_mtok,
                        run.output_price_per_mtok,
                    );
                    (record, f.measurement)
                })
                .collect();
            if let Err(e) = self.store.insert_iterations(run.id, &rows).await {
                tracing::error!(run = %run.id, error = %e, "storing iterations failed; stopping the run");
                failure = Some("results could not be stored; see the server log".to_string());
                live.cancel.cancel();
                break;
            }
            done += rows.len() as u64;
            errors += rows.iter().filter(|(r, _)| r.error.is_some()).count() as u64;
            let points = rows.iter().map(|(r, _)| LivePoint::from(r)).collect();
            let progress = self.progress(&run, RunStatus::Running, done, errors);
            // No subscriber is fine: the page may not be open.
            let _ = live.updates.send(RunUpdate { progress, points });
        }
        drop(rx);
        if driver.await.is_err() {
            failure.get_or_insert_with(|| "the load driver stopped unexpectedly".to_string());
        }
        let status = match (&failure, live.cancel.is_cancelled()) {
            (Some(_), _) => RunStatus::Failed,
            (None, true) => RunStatus::Cancelled,
            (None, false) => RunStatus::Completed,
        };
        let rejected = rejected.load(Ordering::Relaxed);
        if let Err(e) = self.store.finish_run(run.id, status, failure.as_deref(), rejected, self.clock.now_ms()).await {
            tracing::error!(run = %run.id, error = %e, "closing the run failed");
        }
        let _ = live.updates.send(RunUpdate { progress: self.progress(&run, status, done, errors), points: vec![] });
        tracing::info!(run = %run.id, status = status.as_str(), done, errors, "run finished");
    }

    fn progress(&self, run: &RunView, status: RunStatus, done: u64, errors: u64) -> RunProgress {
        let elapsed = u64::try_from(self.clock.now_ms() - run.created_at_ms).unwrap_or(0);
        RunProgress::new(status, run.total_requests, done, errors, elapsed)
    }
}

/// The request of one prompt: system prompt (when set), the user prompt, the agent's tools and token budget.
fn chat_request(plan: &RunPlan, model: &str, prompt_index: usize, ask_for_usage: bool) -> ChatRequest {
    let mut messages = Vec::with_capacity(2);
    if let Some(system) = plan.agent.system_prompt.as_deref().filter(|s| !s.trim().is_empty()) {
        messages.push(ChatMessage { role: "system", content: system.to_string() });
    }
    messages.push(ChatMessage { role: "user", content: plan.prompts[prompt_index].clone() });
    ChatRequest {
        model: model.to_string(),
        messages,
        tools: plan.agent.tools.clone(),
        max_tokens: plan.agent.token_budget,
        temperature: plan.temperature,
        stream: plan.stream,
        stream_options: (plan.stream && ask_for_usage).then_some(StreamOptions { include_usage: true }),
    }
}
