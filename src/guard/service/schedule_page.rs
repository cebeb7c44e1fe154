//! A schedule's page, read in one place: the schedule with its set, connector name, baselines (the current one
//! and the history), what it costs, the latest evaluations and webhook deliveries, and the runs that could be
//! pinned. Every list is bounded. The page draws its history chart from the evaluations (`fragments::history`).

use crate::guard::judge::{guard_plan, measured_key, pool_state, pooled_figures, PoolState};
use crate::guard::model::{
    BaselineInfo, BenchmarkSet, Cadence, CostEstimate, PinnableRun, PooledInfo, Reference, ReferenceFrom, RunVolume,
    Schedule, ScheduleDetail, ScheduleInput,
};
use crate::model::Connector;
use crate::model::Workload;
use crate::model::{ScheduleId, WorkspaceId};
use crate::secrets::SecretBox;
use crate::store::{Store, StoreError};

/// Evaluations and deliveries a schedule's page lists.
pub const HISTORY: u32 = 96;

/// Completed runs offered for pinning.
const PINNABLE: u32 = 50;

/// The page of schedule `id` of `workspace`.
pub async fn schedule_detail(
    store: &Store,
    workspace: WorkspaceId,
    id: ScheduleId,
    now_ms: i64,
) -> Result<ScheduleDetail, StoreError> {
    let schedule = store.get_schedule(workspace, id).await?;
    let connector_id = schedule.input.connector_id;
    let set = store.get_set(workspace, schedule.input.set_id).await?;
    let connector = match store.get_connector(workspace, connector_id).await {
        Ok(connector) => Some(connector),
        Err(StoreError::NotFound) => None,
        Err(e) => return Err(e),
    };
    let workload = store.schedule_workload(workspace, id).await?;
    let spec = workload.as_ref().map(|w| &w.spec);
    let (current, earlier): (Vec<_>, Vec<_>) =
        store.baseline_history(workspace, set.id, connector_id, spec).await?.into_iter().partition(|b| b.current);
    let baseline = current.first().map(BaselineInfo::from);
    let evaluations = store.list_evaluations(workspace, id, HISTORY).await?;
    let deliveries = store.list_webhook_deliveries(workspace, id, HISTORY).await?;
    let pinnable_runs = store
        .completed_runs_on(workspace, connector_id, PINNABLE)
        .await?
        .into_iter()
        .map(|r| PinnableRun { id: r.id, title: r.title, created_at_ms: r.created_at_ms })
        .collect();
    let prices = connector.as_ref().map_or((None, None), Connector::prices);
    let mutes = store.list_mutes(workspace, now_ms).await?.into_iter().filter(|m| m.schedule_id == id).collect();
    let pool = pooled_info(store, workspace, &schedule, &set, spec, now_ms).await?;
    Ok(ScheduleDetail {
        cost: cost_estimate(&set, spec, schedule.input.cadence, prices),
        workload,
        baseline,
        pool,
        earlier_baselines: earlier.iter().map(BaselineInfo::from).collect(),
        connector_name: connector.map(|c| c.name),
        schedule,
        set,
        evaluations,
        deliveries,
        pinnable_runs,
        mutes,
    })
}

/// The pool the schedule's next evaluation would be compared with, when its baseline is pooled and the pool holds
/// any evaluation (of the requests the schedule sends now).
async fn pooled_info(
    store: &Store,
    workspace: WorkspaceId,
    schedule: &Schedule,
    set: &BenchmarkSet,
    workload: Option<&Workload>,
    now_ms: i64,
) -> Result<Option<PooledInfo>, StoreError> {
    let source = schedule.input.policy.baseline;
    if !source.is_pooled() {
        return Ok(None);
    }
    let key = measured_key(&guard_plan(schedule, set, workload));
    let pooled = store.pooled_evaluations(workspace, schedule.id, &key, source, now_ms).await?;
    Ok(match pool_state(source, &pooled) {
        PoolState::Empty => None,
        PoolState::Filling(pool) => {
            let (total_ms, summary, _) = pooled_figures(&pooled);
            Some(PooledInfo { pool, n: total_ms.len(), summary })
        }
        PoolState::Ready(reference) => match *reference {
            Reference { total_ms, summary, from: ReferenceFrom::Pooled(pool), .. } => {
                Some(PooledInfo { pool, n: total_ms.len(), summary })
            }
            Reference { from: ReferenceFrom::Pinned { .. }, .. } => None,
        },
    })
}

/// What a schedule costs a day: its set's prompts, or its workload's requests at their mean lengths (a dataset's
/// tokens are in its rows, so it has no dollar estimate).
pub fn cost_estimate(
    set: &BenchmarkSet,
    workload: Option<&Workload>,
    cadence: Cadence,
    prices: (Option<f64>, Option<f64>),
) -> CostEstimate {
    let Some(workload) = workload else { return set.cost_estimate(cadence, prices) };
    let volume = RunVolume::of_workload(workload, set.system_prompt.as_deref());
    CostEstimate::of_runs(workload.requests(), volume, cadence, prices)
}

/// Creates (`id` is `None`: first due at once, with a new webhook signing secret, returned this once) or
/// replaces a schedule of `workspace` from validated input.
pub async fn save_schedule(
    store: &Store,
    sealer: &SecretBox,
    workspace: WorkspaceId,
    id: Option<ScheduleId>,
    input: &ScheduleInput,
    now_ms: i64,
) -> Result<(Schedule, Option<String>), StoreError> {
    match id {
        None => {
            let secret = crate::guard::notify::new_webhook_secret();
            Ok((store.create_schedule(workspace, input, &secret, sealer, now_ms).await?, Some(secret)))
        }
        Some(id) => Ok((store.update_schedule(workspace, id, input, sealer, now_ms).await?, None)),
    }
}
