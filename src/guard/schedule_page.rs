//! A schedule's page, read in one place: the schedule with its set, connector name, baselines (the current one
//! and the history), what it costs, the latest evaluations and webhook deliveries, the history chart, and the
//! runs that could be pinned. Every list is bounded.

use crate::charts::{schedule_history, HistoryPoint};
use crate::model::{
    BaselineInfo, Connector, EvaluationStatus, EvaluationView, PinnableRun, ScheduleDetail, ScheduleId, WorkspaceId,
};
use crate::model::{Schedule, ScheduleInput};
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
) -> Result<ScheduleDetail, StoreError> {
    let schedule = store.get_schedule(workspace, id).await?;
    let connector_id = schedule.input.connector_id;
    let set = store.get_set(workspace, schedule.input.set_id).await?;
    let connector = match store.get_connector(workspace, connector_id).await {
        Ok(connector) => Some(connector),
        Err(StoreError::NotFound) => None,
        Err(e) => return Err(e),
    };
    let (current, earlier): (Vec<_>, Vec<_>) =
        store.baseline_history(workspace, set.id, connector_id).await?.into_iter().partition(|b| b.current);
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
    let band = baseline.as_ref().and_then(|b| b.summary.mean_ms.zip(b.summary.p95_ms));
    Ok(ScheduleDetail {
        history_svg: schedule_history(&history_points(&evaluations), band),
        cost: set.cost_estimate(schedule.input.cadence, prices),
        baseline,
        earlier_baselines: earlier.iter().map(BaselineInfo::from).collect(),
        connector_name: connector.map(|c| c.name),
        schedule,
        set,
        evaluations,
        deliveries,
        pinnable_runs,
    })
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
            let secret = crate::notify::new_webhook_secret();
            Ok((store.create_schedule(workspace, input, &secret, sealer, now_ms).await?, Some(secret)))
        }
        Some(id) => Ok((store.update_schedule(workspace, id, input, now_ms).await?, None)),
    }
}

/// The chart's points: every finished evaluation, breaches marked.
fn history_points(evaluations: &[EvaluationView]) -> Vec<HistoryPoint> {
    evaluations
        .iter()
        .filter_map(|e| {
            let breached = match e.status {
                EvaluationStatus::Running => return None,
                EvaluationStatus::Breached => true,
                EvaluationStatus::Healthy | EvaluationStatus::NoBaseline | EvaluationStatus::Failed => false,
            };
            Some(HistoryPoint {
                at_ms: e.started_at_ms,
                p95_ms: e.observed_summary.and_then(|s| s.p95_ms),
                mean_ms: e.observed_summary.and_then(|s| s.mean_ms),
                breached,
            })
        })
        .collect()
}
