//! Guard: benchmark sets, schedules (with Run now, Send test and what they cost), baselines, and the alert feed.

use leptos::prelude::*;
use leptos::server_fn::codec::Json;
use serde::{Deserialize, Serialize};

use crate::error::AppError;
use crate::model::{
    AlertId, AlertView, BenchmarkSet, BenchmarkSetId, BenchmarkSetInput, Cadence, Checked, ConnectorId, CostEstimate,
    EvaluationView, GuardSummary, RunId, Schedule, ScheduleId, ScheduleInput, ScheduleOutcome, WebhookDelivery,
};

#[cfg(feature = "ssr")]
use super::context::{reply, state_and_session, store_error};

/// Evaluations and deliveries a schedule's page lists.
#[cfg(feature = "ssr")]
const HISTORY: u32 = 96;

/// A pinned baseline without its samples.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BaselineInfo {
    /// The pinned run.
    pub run_id: RunId,
    /// Its successful requests.
    pub n: usize,
    /// Its summary.
    pub summary: GuardSummary,
    /// Pinned, unix ms.
    pub pinned_at_ms: i64,
}

impl BaselineInfo {
    /// The figures of `baseline`.
    pub fn of(baseline: &crate::model::Baseline) -> Self {
        Self {
            run_id: baseline.run_id,
            n: baseline.total_ms.len(),
            summary: baseline.summary,
            pinned_at_ms: baseline.pinned_at_ms,
        }
    }
}

/// A run that could be pinned.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PinnableRun {
    /// The run.
    pub id: RunId,
    /// Its title.
    pub title: String,
    /// Started, unix ms.
    pub created_at_ms: i64,
}

/// Everything a schedule's page shows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScheduleDetail {
    /// The schedule.
    pub schedule: Schedule,
    /// Its set.
    pub set: BenchmarkSet,
    /// Its connector's name; `None` when the connector was deleted.
    pub connector_name: Option<String>,
    /// The baseline in force.
    pub baseline: Option<BaselineInfo>,
    /// Earlier baselines of the set on this connector, newest first.
    pub earlier_baselines: Vec<BaselineInfo>,
    /// What it costs.
    pub cost: CostEstimate,
    /// The latest evaluations, newest first.
    pub evaluations: Vec<EvaluationView>,
    /// The webhook delivery log, newest first.
    pub deliveries: Vec<WebhookDelivery>,
    /// p95 and mean over time with the baseline band, SVG.
    pub history_svg: String,
    /// Completed runs on the schedule's connector, newest first, to pin as baseline.
    pub pinnable_runs: Vec<PinnableRun>,
}

/// A saved schedule; on creation, its webhook signing secret, shown this once.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SavedSchedule {
    /// The schedule.
    pub schedule: Schedule,
    /// `whsec_…`, only in the reply that created it.
    pub webhook_secret: Option<String>,
}

/// A pinned baseline and what makes it weaker.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PinnedBaseline {
    /// The baseline.
    pub baseline: BaselineInfo,
    /// Differences between the run and the schedule's runs.
    pub warnings: Vec<String>,
}

/// `POST /api/guard/sets/list`, `{}`: the workspace's benchmark sets by name.
#[server(prefix = "/api", endpoint = "guard/sets/list", input = Json)]
pub async fn list_sets() -> Result<Vec<BenchmarkSet>, AppError> {
    reply(
        async move {
            let (state, session) = state_and_session()?;
            state.store.list_sets(session.workspace_id).await.map_err(store_error)
        }
        .await,
    )
}

/// `POST /api/guard/sets/save`, `{"id": null | id, "input": BenchmarkSetInput}`: creates or replaces a set.
#[server(prefix = "/api", endpoint = "guard/sets/save", input = Json)]
pub async fn save_set(id: Option<BenchmarkSetId>, input: Checked<BenchmarkSetInput>) -> Result<BenchmarkSet, AppError> {
    reply(
        async move {
            let (state, session) = state_and_session()?;
            let valid = input.0.validate()?;
            let now = state.clock.now_ms();
            match id {
                None => state.store.create_set(session.workspace_id, &valid, now).await,
                Some(id) => state.store.update_set(session.workspace_id, id, &valid, now).await,
            }
            .map_err(store_error)
        }
        .await,
    )
}

/// `POST /api/guard/sets/delete`, `{"id"}`: deletes a set no schedule runs.
#[server(prefix = "/api", endpoint = "guard/sets/delete", input = Json)]
pub async fn delete_set(id: BenchmarkSetId) -> Result<(), AppError> {
    reply(
        async move {
            let (state, session) = state_and_session()?;
            state.store.delete_set(session.workspace_id, id).await.map_err(store_error)
        }
        .await,
    )
}

/// `POST /api/guard/schedules/list`, `{}`: the workspace's schedules by name.
#[server(prefix = "/api", endpoint = "guard/schedules/list", input = Json)]
pub async fn list_schedules() -> Result<Vec<Schedule>, AppError> {
    reply(
        async move {
            let (state, session) = state_and_session()?;
            state.store.list_schedules(session.workspace_id).await.map_err(store_error)
        }
        .await,
    )
}

/// `POST /api/guard/schedules/save`, `{"id": null | id, "input": ScheduleInput}`: creates (first due at once)
/// or replaces a schedule; a new one's webhook signing secret is in the reply, this once.
#[server(prefix = "/api", endpoint = "guard/schedules/save", input = Json)]
pub async fn save_schedule(id: Option<ScheduleId>, input: Checked<ScheduleInput>) -> Result<SavedSchedule, AppError> {
    reply(
        async move {
            let (state, session) = state_and_session()?;
            let valid = input.0.validate()?;
            let now = state.clock.now_ms();
            let ws = session.workspace_id;
            match id {
                None => {
                    let secret = crate::notify::new_webhook_secret();
                    let schedule = state
                        .store
                        .create_schedule(ws, &valid, &secret, &state.sealer, now)
                        .await
                        .map_err(store_error)?;
                    Ok(SavedSchedule { schedule, webhook_secret: Some(secret) })
                }
                Some(id) => {
                    let schedule = state.store.update_schedule(ws, id, &valid, now).await.map_err(store_error)?;
                    Ok(SavedSchedule { schedule, webhook_secret: None })
                }
            }
        }
        .await,
    )
}

/// `POST /api/guard/schedules/get`, `{"id"}`: a schedule with its set, baseline, cost, history and deliveries.
#[server(prefix = "/api", endpoint = "guard/schedules/get", input = Json)]
pub async fn get_schedule(id: ScheduleId) -> Result<ScheduleDetail, AppError> {
    reply(
        async move {
            let (state, session) = state_and_session()?;
            let (store, ws) = (&state.store, session.workspace_id);
            let schedule = store.get_schedule(ws, id).await.map_err(store_error)?;
            let set = store.get_set(ws, schedule.input.set_id).await.map_err(store_error)?;
            let connector = store.get_connector(ws, schedule.input.connector_id).await.ok();
            let mut baselines = store
                .baseline_history(ws, set.id, schedule.input.connector_id)
                .await
                .map_err(store_error)?
                .into_iter()
                .map(|b| (b.current, BaselineInfo::of(&b)))
                .collect::<Vec<_>>();
            let current = baselines.iter().position(|(current, _)| *current).map(|i| baselines.remove(i).1);
            let evaluations = store.list_evaluations(ws, id, HISTORY).await.map_err(store_error)?;
            let deliveries = store.list_webhook_deliveries(ws, id, HISTORY).await.map_err(store_error)?;
            let pinnable_runs = store
                .list_runs(ws)
                .await
                .map_err(store_error)?
                .into_iter()
                .filter(|r| {
                    r.plan.connector_id == schedule.input.connector_id && r.status == crate::model::RunStatus::Completed
                })
                .take(50)
                .map(|r| PinnableRun { id: r.id, title: r.title, created_at_ms: r.created_at_ms })
                .collect();
            let prompts: Vec<&str> = set.prompts.iter().map(|p| p.text.as_str()).collect();
            let prices = connector.as_ref().map_or((None, None), |c| (c.input_price_per_mtok, c.output_price_per_mtok));
            let cost = crate::model::cost_estimate(
                &prompts,
                set.system_prompt.as_deref(),
                set.max_tokens,
                schedule.input.cadence,
                prices,
            );
            let points: Vec<crate::charts::HistoryPoint> = evaluations
                .iter()
                .filter(|e| e.status != "running")
                .map(|e| crate::charts::HistoryPoint {
                    at_ms: e.started_at_ms,
                    p95_ms: e.observed_summary.and_then(|s| s.p95_ms),
                    mean_ms: e.observed_summary.and_then(|s| s.mean_ms),
                    breached: e.status == "breached",
                })
                .collect();
            let band = current.as_ref().and_then(|b| b.summary.mean_ms.zip(b.summary.p95_ms));
            Ok(ScheduleDetail {
                history_svg: crate::charts::schedule_history(&points, band),
                baseline: current,
                earlier_baselines: baselines.into_iter().map(|(_, b)| b).collect(),
                connector_name: connector.map(|c| c.name),
                schedule,
                set,
                cost,
                evaluations,
                deliveries,
                pinnable_runs,
            })
        }
        .await,
    )
}

/// `POST /api/guard/schedules/enable`, `{"id", "enabled"}`: pauses (`false`) or resumes a schedule.
#[server(prefix = "/api", endpoint = "guard/schedules/enable", input = Json)]
pub async fn enable_schedule(id: ScheduleId, enabled: bool) -> Result<Schedule, AppError> {
    reply(
        async move {
            let (state, session) = state_and_session()?;
            let now = state.clock.now_ms();
            state.store.set_schedule_enabled(session.workspace_id, id, enabled, now).await.map_err(store_error)
        }
        .await,
    )
}

/// `POST /api/guard/schedules/delete`, `{"id"}`: deletes a schedule, its evaluations, alerts and webhooks.
#[server(prefix = "/api", endpoint = "guard/schedules/delete", input = Json)]
pub async fn delete_schedule(id: ScheduleId) -> Result<(), AppError> {
    reply(
        async move {
            let (state, session) = state_and_session()?;
            state.store.delete_schedule(session.workspace_id, id).await.map_err(store_error)
        }
        .await,
    )
}

/// `POST /api/guard/schedules/run`, `{"id"}`: Run now — the tick's own evaluation for this one schedule; waits
/// for the run and answers what it decided.
#[server(prefix = "/api", endpoint = "guard/schedules/run", input = Json)]
pub async fn run_schedule_now(id: ScheduleId) -> Result<ScheduleOutcome, AppError> {
    reply(
        async move {
            let (state, session) = state_and_session()?;
            state.guard.run_now(session.workspace_id, id).await.map_err(store_error)?.ok_or_else(|| {
                AppError::Invalid(crate::model::ValidationError::new("id", "it is running this instant already"))
            })
        }
        .await,
    )
}

/// `POST /api/guard/schedules/test-webhook`, `{"id"}`: sends a signed test message to the schedule's webhook now
/// (that message alone) and answers how the attempt went (it is retried like any other if it failed).
#[server(prefix = "/api", endpoint = "guard/schedules/test-webhook", input = Json)]
pub async fn send_test_webhook(id: ScheduleId) -> Result<WebhookDelivery, AppError> {
    reply(
        async move {
            let (state, session) = state_and_session()?;
            let ws = session.workspace_id;
            let schedule = state.store.get_schedule(ws, id).await.map_err(store_error)?;
            let url = schedule.input.webhook_url.clone().ok_or_else(|| {
                AppError::Invalid(crate::model::ValidationError::new("webhookUrl", "the schedule has no webhook URL"))
            })?;
            let now = state.clock.now_ms();
            let message_id = format!("msg_{}", uuid::Uuid::new_v4().simple());
            let body = crate::notify::test_message_body(&schedule, &url, now);
            state.store.queue_test_webhook(ws, id, &url, &message_id, &body, now).await.map_err(store_error)?;
            state.webhooks.deliver_now(ws, &message_id).await.map_err(store_error)?;
            let log = state.store.list_webhook_deliveries(ws, id, HISTORY).await.map_err(store_error)?;
            log.into_iter().find(|d| d.id == message_id).ok_or(AppError::Internal)
        }
        .await,
    )
}

/// `POST /api/guard/estimate`, `{"set", "connector", "cadence"}`: requests and USD a day of a schedule.
#[server(prefix = "/api", endpoint = "guard/estimate", input = Json)]
pub async fn estimate_cost(
    set: BenchmarkSetId,
    connector: ConnectorId,
    cadence: Cadence,
) -> Result<CostEstimate, AppError> {
    let (set_id, connector_id) = (set, connector);
    reply(
        async move {
            let (state, session) = state_and_session()?;
            let set = state.store.get_set(session.workspace_id, set_id).await.map_err(store_error)?;
            let connector = state.store.get_connector(session.workspace_id, connector_id).await.map_err(store_error)?;
            let prompts: Vec<&str> = set.prompts.iter().map(|p| p.text.as_str()).collect();
            Ok(crate::model::cost_estimate(
                &prompts,
                set.system_prompt.as_deref(),
                set.max_tokens,
                cadence,
                (connector.input_price_per_mtok, connector.output_price_per_mtok),
            ))
        }
        .await,
    )
}

/// `POST /api/guard/baselines/pin`, `{"schedule", "run"}`: pins a completed run of the schedule's connector as
/// the baseline of its set there; earlier baselines stay in the history.
#[server(prefix = "/api", endpoint = "guard/baselines/pin", input = Json)]
pub async fn pin_baseline(schedule: ScheduleId, run: RunId) -> Result<PinnedBaseline, AppError> {
    let (schedule_id, run_id) = (schedule, run);
    reply(
        async move {
            let (state, session) = state_and_session()?;
            let now = state.clock.now_ms();
            let (b, warnings) = crate::guard::pin_run(&state.store, session.workspace_id, schedule_id, run_id, now)
                .await
                .map_err(store_error)?;
            Ok(PinnedBaseline {
                baseline: BaselineInfo {
                    run_id: b.run_id,
                    n: b.total_ms.len(),
                    summary: b.summary,
                    pinned_at_ms: b.pinned_at_ms,
                },
                warnings,
            })
        }
        .await,
    )
}

/// `POST /api/guard/email-enabled`, `{}`: whether alert e-mail can go out (an SMTP server is configured).
#[server(prefix = "/api", endpoint = "guard/email-enabled", input = Json)]
pub async fn email_enabled() -> Result<bool, AppError> {
    reply(
        async move {
            let (state, _) = state_and_session()?;
            Ok(state.settings.smtp.is_some())
        }
        .await,
    )
}

/// `POST /api/guard/alerts/list`, `{}`: the alert feed, open alerts first.
#[server(prefix = "/api", endpoint = "guard/alerts/list", input = Json)]
pub async fn list_alerts() -> Result<Vec<AlertView>, AppError> {
    reply(
        async move {
            let (state, session) = state_and_session()?;
            state.store.list_alerts(session.workspace_id, 200).await.map_err(store_error)
        }
        .await,
    )
}

/// `POST /api/guard/alerts/count`, `{}`: unacknowledged alerts (the sidebar badge).
#[server(prefix = "/api", endpoint = "guard/alerts/count", input = Json)]
pub async fn open_alert_count() -> Result<u64, AppError> {
    reply(
        async move {
            let (state, session) = state_and_session()?;
            state.store.open_alert_count(session.workspace_id).await.map_err(store_error)
        }
        .await,
    )
}

/// `POST /api/guard/alerts/ack`, `{"id"}`: acknowledges one alert; `false` when it was already.
#[server(prefix = "/api", endpoint = "guard/alerts/ack", input = Json)]
pub async fn acknowledge_alert(id: AlertId) -> Result<bool, AppError> {
    reply(
        async move {
            let (state, session) = state_and_session()?;
            let now = state.clock.now_ms();
            state.store.acknowledge_alert(session.workspace_id, id, now).await.map_err(store_error)
        }
        .await,
    )
}

/// `POST /api/guard/alerts/ack-all`, `{}`: acknowledges every open alert; how many.
#[server(prefix = "/api", endpoint = "guard/alerts/ack-all", input = Json)]
pub async fn acknowledge_all_alerts() -> Result<u64, AppError> {
    reply(
        async move {
            let (state, session) = state_and_session()?;
            let now = state.clock.now_ms();
            state.store.acknowledge_all_alerts(session.workspace_id, now).await.map_err(store_error)
        }
        .await,
    )
}
