//! Sweeps end to end in the server: validate the plan, record the sweep, and drive it in the background — each
//! level a regular run (stored, live on its page, listed with the others) judged by `capacity`; after every level
//! the report so far is written, so the sweep's page fills in as it goes. Cancelling stops the level running and
//! keeps the levels done. Replicas share sweeps as they share runs: a cancel reaches the driving process through
//! the database, and a sweep whose process went silent is marked interrupted.

use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::{progress_report, repeated_progress, sweep, CapacitySpec, LevelError, LevelRunner, SearchEvent};
use crate::capacity::judge::{Criteria, LevelRun};
use crate::capacity::model::{LevelPlan, SweepInput, SweepPlan, SweepSummary};
use crate::capacity::store::NewSweep;
use crate::clock::Clock;
use crate::jobs::{store_ending, JobOwner, LiveJobs, StartError};
use crate::model::{LoadMode, RunPlanInput, RunStatus, SweepId, WorkspaceId};
use crate::runs::service::RunManager;
use crate::store::Store;

/// Starts, cancels and looks after sweeps. Cheap to clone.
#[derive(Clone)]
pub struct SweepManager {
    store: Store,
    runs: RunManager,
    clock: Arc<dyn Clock>,
    /// The sweeps this process drives.
    jobs: LiveJobs<SweepId>,
}

/// The capacity spec of a plan.
fn spec_of(plan: &SweepPlan) -> CapacitySpec {
    CapacitySpec {
        levels: plan.levels.clone(),
        criteria: Criteria { slos: plan.slos.clone(), max_error_rate: plan.max_error_rate },
        requests_per_level: plan.requests_per_level,
        max_in_flight: plan.max_in_flight,
        poisson: plan.poisson,
    }
}

/// Runs each level as a stored run of the sweep's workspace.
struct StoredLevels {
    runs: RunManager,
    store: Store,
    workspace: WorkspaceId,
    sweep: SweepId,
    title: String,
    template: RunPlanInput,
    stop: CancellationToken,
    /// Levels run so far: each seeds its workload's prompts afresh.
    levels_run: u32,
}

impl LevelRunner for StoredLevels {
    async fn run_level(&mut self, mode: LoadMode, requests: u32, warmup: u32) -> Result<LevelRun, LevelError> {
        if self.stop.is_cancelled() {
            return Err(LevelError::Stopped);
        }
        let axis_level = mode.level_text();
        let input = RunPlanInput {
            title: Some(format!("{} · {axis_level}", self.title).chars().take(200).collect()),
            ..super::super::judge::level_input(&self.template, mode, requests, warmup, self.levels_run)
        };
        self.levels_run += 1;
        let started = Instant::now();
        let (tell, told) = tokio::sync::oneshot::channel();
        let (store, sweep, label) = (self.store.clone(), self.sweep, axis_level.clone());
        let current = tokio::spawn(async move {
            if let Ok(run) = told.await {
                if let Err(e) = store.set_sweep_current(sweep, run, &label).await {
                    tracing::warn!(sweep = %sweep, error = %e, "recording the sweep's current level failed");
                }
            }
        });
        let failed = |why: String| LevelError::Failed { level: axis_level.clone(), why };
        let run = self.runs.run_to_end_unless(self.workspace, input, &self.stop, Some(tell)).await;
        let _ = current.await;
        let run = run.map_err(|e| failed(e.to_string()))?;
        if self.stop.is_cancelled() {
            return Err(LevelError::Stopped);
        }
        if let Some(failure) = run.failure {
            return Err(failed(failure));
        }
        let records = self.store.run_iterations(self.workspace, run.id).await.map_err(|e| failed(e.to_string()))?;
        let validity = Some(crate::runs::report::judge_run(&run, &records, &crate::stats::summarize(&records)));
        Ok(LevelRun { records, wall_s: started.elapsed().as_secs_f64(), run_id: Some(run.id), validity })
    }

    async fn pause(&mut self, seconds: f64) -> Result<(), LevelError> {
        tokio::select! {
            () = tokio::time::sleep(Duration::from_secs_f64(seconds)) => Ok(()),
            () = self.stop.cancelled() => Err(LevelError::Stopped),
        }
    }
}

impl SweepManager {
    /// A manager over the shared store, run manager and clock, with a new random instance name.
    pub fn new(store: Store, runs: RunManager, clock: Arc<dyn Clock>) -> Self {
        Self { store, runs, clock, jobs: LiveJobs::new() }
    }

    /// Validates `input` against its connector, records the sweep and starts it in the background.
    pub async fn start(&self, workspace: WorkspaceId, mut input: SweepInput) -> Result<SweepSummary, StartError> {
        let connector = self.store.get_connector(workspace, input.connector_id).await?;
        // An uploaded dataset's rows as the workspace keeps them, so each level is checked against them.
        self.store.resolve_workload(workspace, &mut input).await?;
        let plan = input.validate(&connector.model)?;
        if let Some(workload) = &plan.template.workload {
            workload.refuse_a_file_on_a_server()?;
        }
        self.runs.check_reachable(workspace, input.connector_id).await?;
        let id = SweepId::new_random();
        let sweep = NewSweep {
            id,
            plan: &plan,
            connector: (input.connector_id, connector.name.as_str()),
            owner: self.jobs.instance(),
        };
        let summary = self.store.create_sweep(workspace, &sweep, self.clock.now_ms()).await?;
        let driving = self.jobs.drive(id, workspace, ());
        let manager = self.clone();
        tokio::spawn(async move {
            manager.drive(workspace, id, plan, driving.cancel.clone()).await;
            drop(driving);
        });
        Ok(summary)
    }

    async fn drive(&self, workspace: WorkspaceId, id: SweepId, plan: SweepPlan, cancel: CancellationToken) {
        let spec = spec_of(&plan);
        // Each finished level is written at once, from a task of its own (the event callback cannot wait).
        let (events, mut received) = mpsc::unbounded_channel::<SearchEvent>();
        let writer = tokio::spawn({
            let (store, clock, spec) = (self.store.clone(), Arc::clone(&self.clock), spec.clone());
            let started = Instant::now();
            async move {
                let (mut probes, mut levels) = (Vec::new(), Vec::new());
                let repeated_run = matches!(spec.levels, LevelPlan::Repeated { .. });
                while let Some(event) = received.recv().await {
                    let wall_s = started.elapsed().as_secs_f64();
                    let report = match event {
                        SearchEvent::Probed(probe) => {
                            probes.push(*probe);
                            progress_report(&spec, &probes, &levels, wall_s)
                        }
                        // A repetition's level is written with the summary that follows it.
                        SearchEvent::Finished(level) if repeated_run => {
                            levels.push(*level);
                            continue;
                        }
                        SearchEvent::Finished(level) => {
                            levels.push(*level);
                            progress_report(&spec, &probes, &levels, wall_s)
                        }
                        SearchEvent::Repeated(summary) => repeated_progress(&spec, &levels, *summary, wall_s),
                        SearchEvent::Started { .. } | SearchEvent::Probing { .. } => continue,
                    };
                    if let Err(e) = store.set_sweep_progress(id, &report, clock.now_ms()).await {
                        tracing::warn!(sweep = %id, error = %e, "writing the sweep's progress failed");
                    }
                }
            }
        });
        let mut runner = StoredLevels {
            runs: self.runs.clone(),
            store: self.store.clone(),
            workspace,
            sweep: id,
            title: plan.title.clone(),
            template: plan.template.clone(),
            stop: cancel.clone(),
            levels_run: 0,
        };
        let outcome = sweep(&mut runner, &spec, |event| {
            let _ = events.send(event);
        })
        .await;
        drop(events);
        let _ = writer.await;
        let now = self.clock.now_ms();
        let (status, report, failure) = match (outcome, self.jobs.stop_status(&cancel)) {
            (Ok(report), _) => (RunStatus::Completed, Some(report), None),
            (Err(_), Some(stopped)) => (stopped, None, None),
            (Err(why), None) => (RunStatus::Failed, None, Some(why.to_string())),
        };
        store_ending(&self.store, id, status, report.as_ref(), failure.as_deref(), now).await;
    }
}

impl JobOwner for SweepManager {
    type Id = SweepId;
    type Kept = ();

    fn live_jobs(&self) -> &LiveJobs<SweepId, ()> {
        &self.jobs
    }

    fn store(&self) -> &Store {
        &self.store
    }

    fn now_ms(&self) -> i64 {
        self.clock.now_ms()
    }
}
