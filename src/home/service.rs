//! What the home page reads — the first steps, the newest runs with their headline figures, Guard's schedules and
//! open incidents — each a bounded read, and the demo run its first step starts.

use std::collections::HashMap;

use crate::guard::model::Schedule;
use crate::home::model::{first_steps, Progress, Step};
use crate::jobs::StartError;
use crate::model::{Agent, ConnectorId, LoadMode, RunPlanInput, RunView, WorkspaceId};
use crate::runs::service::RunManager;
use crate::store::{Store, StoreError};

/// Runs the home page lists, newest first.
pub const RECENT_RUNS: u32 = 6;

/// Schedules the home page lists (the Guard page lists them all).
pub const SCHEDULES_SHOWN: usize = 8;

/// What the home page shows.
#[derive(Debug, Clone)]
pub struct Home {
    /// The first steps still worth offering, each with whether it is done (empty once all are).
    pub steps: Vec<(Step, bool)>,
    /// The newest runs.
    pub recent: Vec<RunView>,
    /// The name of each connector a listed run used (a deleted one has none).
    pub connector_names: HashMap<ConnectorId, String>,
    /// The workspace's schedules, the first [`SCHEDULES_SHOWN`].
    pub schedules: Vec<Schedule>,
    /// How many schedules there are in all.
    pub schedule_count: usize,
    /// Unacknowledged incidents (as the sidebar's badge counts them).
    pub open_incidents: u64,
}

/// Reads the home page of `workspace`.
pub async fn home(store: &Store, workspace: WorkspaceId) -> Result<Home, StoreError> {
    let connectors = store.list_connectors(workspace).await?;
    let runs_per_connector: HashMap<ConnectorId, u64> =
        store.runs_per_connector(workspace).await?.into_iter().collect();
    let runs_of = |id: ConnectorId| runs_per_connector.get(&id).copied().unwrap_or(0);
    let mut schedules = store.list_schedules(workspace).await?;
    let progress = Progress {
        has_demo: connectors.iter().any(|c| c.is_demo),
        demo_runs: connectors.iter().filter(|c| c.is_demo).map(|c| runs_of(c.id)).sum(),
        own_connectors: connectors.iter().filter(|c| !c.is_demo).count() as u64,
        own_runs: connectors.iter().filter(|c| !c.is_demo).map(|c| runs_of(c.id)).sum(),
        schedules: schedules.len() as u64,
    };
    let schedule_count = schedules.len();
    schedules.truncate(SCHEDULES_SHOWN);
    Ok(Home {
        steps: first_steps(progress),
        recent: store.recent_runs(workspace, RECENT_RUNS).await?,
        connector_names: connectors.into_iter().map(|c| (c.id, c.name)).collect(),
        schedules,
        schedule_count,
        open_incidents: store.open_incident_count(workspace).await?,
    })
}

/// Why the demo run did not start.
#[derive(Debug, thiserror::Error)]
pub enum DemoError {
    /// The install does not serve the demo simulator, or the workspace deleted its connector.
    #[error("this workspace has no demo connector")]
    NoDemo,
    /// The run was refused or could not be recorded.
    #[error(transparent)]
    Start(#[from] StartError),
    /// The connectors could not be read.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Starts the demo run of `workspace` against its demo connector: what the first step's button does.
pub async fn start_demo_run(store: &Store, runs: &RunManager, workspace: WorkspaceId) -> Result<RunView, DemoError> {
    let demo = store.list_connectors(workspace).await?.into_iter().find(|c| c.is_demo).ok_or(DemoError::NoDemo)?;
    Ok(runs.start(workspace, demo_plan(demo.id)).await?)
}

/// Prompts of the demo run: short questions of the kind a chat feature answers.
const DEMO_PROMPTS: [&str; 4] = [
    "Summarise the plot of Hamlet in three sentences.",
    "Explain what a p95 latency is to a new engineer.",
    "Write a haiku about a slow network.",
    "List three ways to make an HTTP API faster.",
];

/// The demo run: 120 measured requests (enough for a p99) after 8 warm-ups, 8 in flight, streamed, judged against
/// two objectives so the report shows goodput; against the simulator's 120 ms first token and 64 tokens 15 ms apart
/// it takes about 20 s.
fn demo_plan(connector: ConnectorId) -> RunPlanInput {
    let agent = Agent { name: "demo".into(), system_prompt: None, tools: Vec::new(), token_budget: 64 };
    let prompts = DEMO_PROMPTS.iter().map(|p| (*p).to_string()).collect();
    let mut plan = RunPlanInput::new(connector, agent, prompts, 30, LoadMode::Closed { concurrency: 8 });
    plan.title = Some("Demo run".into());
    plan.warmup = 8;
    plan.slos = vec!["ttft_ms<=500".into(), "tpot_ms<=50".into()];
    plan
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_demo_plan_is_valid_and_sends_enough_for_a_p99() {
        let plan = demo_plan(ConnectorId::new_random()).validate("sim-model").unwrap();
        assert_eq!(plan.total_requests(), 128);
        assert_eq!(plan.slos.len(), 2, "both objectives parse");
        assert_eq!(plan.title, "Demo run");
    }
}
