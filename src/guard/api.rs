//! Guard: benchmark sets, schedules (with Run now, Send test and what they cost), baselines, and the alert feed.

use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use crate::error::AppError;
use crate::guard::model::{
    AlertView, BenchmarkSet, BenchmarkSetInput, Cadence, CostEstimate, Mute, RunVolume, Schedule, ScheduleInput,
    ScheduleOutcome, WebhookDelivery,
};
pub use crate::guard::model::{BaselineInfo, PinnableRun, ScheduleDetail};
use crate::model::{AlertId, BenchmarkSetId, Checked, ConnectorId, RunId, ScheduleId, WorkloadId};
use crate::wire::{Json, ServerHtml};

#[cfg(feature = "ssr")]
use crate::api::context::with_session;

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
#[server(prefix = "/api", endpoint = "guard/sets/list", input = Json, output = Json)]
pub async fn list_sets() -> Result<Vec<BenchmarkSet>, AppError> {
    with_session(|state, session| async move { Ok(state.store.list_sets(session.workspace_id).await?) }).await
}

/// `POST /api/guard/sets/save`, `{"id": null | id, "input": BenchmarkSetInput}`: creates or replaces a set.
#[server(prefix = "/api", endpoint = "guard/sets/save", input = Json, output = Json)]
pub async fn save_set(id: Option<BenchmarkSetId>, input: Checked<BenchmarkSetInput>) -> Result<BenchmarkSet, AppError> {
    with_session(|state, session| async move {
        let valid = input.0.validate()?;
        let now = state.clock.now_ms();
        Ok(match id {
            None => state.store.create_set(session.workspace_id, &valid, now).await?,
            Some(id) => state.store.update_set(session.workspace_id, id, &valid, now).await?,
        })
    })
    .await
}

/// `POST /api/guard/sets/delete`, `{"id"}`: deletes a set no schedule runs.
#[server(prefix = "/api", endpoint = "guard/sets/delete", input = Json, output = Json)]
pub async fn delete_set(id: BenchmarkSetId) -> Result<(), AppError> {
    with_session(|state, session| async move { Ok(state.store.delete_set(session.workspace_id, id).await?) }).await
}

/// `POST /api/guard/schedules/list`, `{}`: the workspace's schedules by name.
#[server(prefix = "/api", endpoint = "guard/schedules/list", input = Json, output = Json)]
pub async fn list_schedules() -> Result<Vec<Schedule>, AppError> {
    with_session(|state, session| async move { Ok(state.store.list_schedules(session.workspace_id).await?) }).await
}

/// What a schedule's form offers: the sets and connectors to pick from, with what its cost estimate needs, and what
/// e-mail it can send. Only that: the form's page reads neither the sets' prompts nor the connectors' settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScheduleChoices {
    /// The workspace's benchmark sets, by name.
    pub sets: Vec<SetChoice>,
    /// The workspace's connectors, by name.
    pub connectors: Vec<ConnectorChoice>,
    /// The workspace's saved workloads a schedule can send, by name.
    pub workloads: Vec<ScheduleWorkloadChoice>,
    /// What e-mail a schedule can send here.
    pub mail: MailSetup,
}

/// A saved workload in the schedule form's picker: what the form shows and its cost estimate needs, not the
/// workload itself.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScheduleWorkloadChoice {
    /// Id.
    pub id: WorkloadId,
    /// Name.
    pub name: String,
    /// Every parameter, in words.
    pub summary: String,
    /// What one run sends without a system prompt (the set's is added); `None` for a dataset, whose lengths are
    /// in its rows.
    pub volume: Option<RunVolume>,
    /// Requests one run sends.
    pub requests: u32,
}

/// A benchmark set in the schedule form's picker.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SetChoice {
    /// Id.
    pub id: BenchmarkSetId,
    /// Name.
    pub name: String,
    /// What one run sends: its requests (one per prompt; too few, and the form warns) and tokens, for the form's
    /// cost estimate.
    pub volume: RunVolume,
    /// Its system prompt's tokens (estimated), added to each request of a workload sent with the set.
    pub system_tokens: f64,
}

/// A connector in the schedule form's picker.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConnectorChoice {
    /// Id.
    pub id: ConnectorId,
    /// Name.
    pub name: String,
    /// The model it asks for.
    pub model: String,
    /// USD per 1M input tokens, if priced.
    pub input_price_per_mtok: Option<f64>,
    /// USD per 1M output tokens, if priced.
    pub output_price_per_mtok: Option<f64>,
}

impl ConnectorChoice {
    /// (input, output) USD per 1M tokens, as [`RunVolume::per_day`] takes them.
    pub fn prices(&self) -> (Option<f64>, Option<f64>) {
        (self.input_price_per_mtok, self.output_price_per_mtok)
    }
}

/// What e-mail a schedule can send here.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MailSetup {
    /// Whether an SMTP server is configured.
    pub enabled: bool,
    /// The owner's confirmed contact address, if any.
    pub owner_contact: Option<String>,
}

/// `POST /api/guard/schedules/choices`, `{}`: the schedule form's sets, connectors and mail setup.
#[server(prefix = "/api", endpoint = "guard/schedules/choices", input = Json, output = Json)]
pub async fn get_schedule_choices() -> Result<ScheduleChoices, AppError> {
    with_session(|state, session| async move {
        let workspace = session.workspace_id;
        let sets = state.store.list_sets(workspace).await?;
        let connectors = state.store.list_connectors(workspace).await?;
        let workloads = state.store.list_workloads(workspace).await?;
        Ok(ScheduleChoices {
            sets: sets
                .into_iter()
                .map(|s| SetChoice {
                    id: s.id,
                    volume: s.volume(),
                    system_tokens: s.system_prompt.as_deref().map_or(0.0, RunVolume::estimated_tokens),
                    name: s.name,
                })
                .collect(),
            workloads: workloads
                .into_iter()
                .filter(|w| crate::guard::model::schedulable(&w.spec).is_ok())
                .map(|w| ScheduleWorkloadChoice {
                    id: w.id,
                    summary: w.spec.describe(),
                    volume: RunVolume::of_workload(&w.spec, None),
                    requests: w.spec.requests(),
                    name: w.name,
                })
                .collect(),
            connectors: connectors
                .into_iter()
                .map(|c| ConnectorChoice {
                    id: c.id,
                    input_price_per_mtok: c.input_price_per_mtok,
                    output_price_per_mtok: c.output_price_per_mtok,
                    name: c.name,
                    model: c.model,
                })
                .collect(),
            mail: MailSetup {
                enabled: state.guard.mail().is_some(),
                owner_contact: state.store.owner_contact(workspace).await?,
            },
        })
    })
    .await
}

/// `POST /api/guard/schedules/save`, `{"id": null | id, "input": ScheduleInput}`: creates (first due at once)
/// or replaces a schedule; a new one's webhook signing secret is in the reply, this once.
#[server(prefix = "/api", endpoint = "guard/schedules/save", input = Json, output = Json)]
pub async fn save_schedule(id: Option<ScheduleId>, input: Checked<ScheduleInput>) -> Result<SavedSchedule, AppError> {
    with_session(|state, session| async move {
        let (valid, now) = (input.0.validate()?, state.clock.now_ms());
        let (schedule, webhook_secret) =
            crate::guard::service::save_schedule(&state.store, &state.sealer, session.workspace_id, id, &valid, now)
                .await?;
        Ok(SavedSchedule { schedule, webhook_secret })
    })
    .await
}

/// `POST /api/guard/schedules/get`, `{"id"}`: a schedule with its set, baseline, cost, history and deliveries.
#[server(prefix = "/api", endpoint = "guard/schedules/get", input = Json, output = Json)]
pub async fn get_schedule(id: ScheduleId) -> Result<ScheduleDetail, AppError> {
    with_session(|state, session| async move {
        Ok(crate::guard::service::schedule_detail(&state.store, session.workspace_id, id, state.clock.now_ms()).await?)
    })
    .await
}

/// A schedule's page: what its form and actions read, and the rest as HTML the server rendered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SchedulePage {
    /// The schedule: the form's values, whether it is paused, whether it has a webhook.
    pub schedule: Schedule,
    /// What it runs, against what, how often, at what cost; its last failure.
    pub header: ServerHtml,
    /// The baseline in force and the earlier ones.
    pub baselines: ServerHtml,
    /// The runs that could be pinned as baseline, as `<option>`s; the first is chosen.
    pub pinnable_choices: ServerHtml,
    /// The first of them, if any.
    pub first_pinnable: Option<RunId>,
    /// The history chart, the evaluations and the webhook deliveries.
    pub history: ServerHtml,
}

/// `POST /api/guard/schedules/page`, `{"id"}`: the schedule's page as the browser shows it (`guard/schedules/get`
/// has the same as data).
#[server(prefix = "/api", endpoint = "guard/schedules/page", input = Json, output = Json)]
pub async fn get_schedule_page(id: ScheduleId) -> Result<SchedulePage, AppError> {
    with_session(|state, session| async move {
        let detail =
            crate::guard::service::schedule_detail(&state.store, session.workspace_id, id, state.clock.now_ms())
                .await?;
        Ok(SchedulePage {
            header: crate::guard::fragments::schedule_header(&detail),
            baselines: crate::guard::fragments::baselines(&detail),
            pinnable_choices: crate::guard::fragments::pinnable_choices(&detail),
            first_pinnable: detail.pinnable_runs.first().map(|r| r.id),
            history: crate::guard::fragments::history(&detail, crate::guard::service::history_changes(&detail).await),
            schedule: detail.schedule,
        })
    })
    .await
}

/// `POST /api/guard/schedules/enable`, `{"id", "enabled"}`: pauses (`false`) or resumes a schedule.
#[server(prefix = "/api", endpoint = "guard/schedules/enable", input = Json, output = Json)]
pub async fn enable_schedule(id: ScheduleId, enabled: bool) -> Result<Schedule, AppError> {
    with_session(|state, session| async move {
        let now = state.clock.now_ms();
        Ok(state.store.set_schedule_enabled(session.workspace_id, id, enabled, now).await?)
    })
    .await
}

/// `POST /api/guard/schedules/delete`, `{"id"}`: deletes a schedule, its evaluations, alerts and webhooks.
#[server(prefix = "/api", endpoint = "guard/schedules/delete", input = Json, output = Json)]
pub async fn delete_schedule(id: ScheduleId) -> Result<(), AppError> {
    with_session(|state, session| async move { Ok(state.store.delete_schedule(session.workspace_id, id).await?) }).await
}

/// `POST /api/guard/schedules/run`, `{"id"}`: Run now — the tick's own evaluation for this one schedule; waits
/// for the run and answers what it decided.
#[server(prefix = "/api", endpoint = "guard/schedules/run", input = Json, output = Json)]
pub async fn run_schedule_now(id: ScheduleId) -> Result<ScheduleOutcome, AppError> {
    with_session(|state, session| async move {
        state.guard.run_now(session.workspace_id, id).await?.ok_or_else(|| {
            AppError::Invalid(crate::model::ValidationError::new("id", "it is running this instant already"))
        })
    })
    .await
}

/// `POST /api/guard/schedules/test-webhook`, `{"id"}`: sends a signed test message to the schedule's webhook now
/// (that message alone) and answers how the attempt went (it is retried like any other if it failed). A workspace
/// sends 5 test messages (webhooks and e-mail together) at once, then one a minute; past that a 400 says when.
#[server(prefix = "/api", endpoint = "guard/schedules/test-webhook", input = Json, output = Json)]
pub async fn send_test_webhook(id: ScheduleId) -> Result<WebhookDelivery, AppError> {
    with_session(|state, session| async move {
        let schedule = state.store.get_schedule(session.workspace_id, id).await?;
        take_test_message_token(&state, session.workspace_id).await?;
        Ok(state.webhooks.send_test(session.workspace_id, &schedule).await?)
    })
    .await
}

/// What a test e-mail did at one address.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TestMailed {
    /// The recipient.
    pub to: String,
    /// The SMTP server's refusal, if it refused.
    pub error: Option<String>,
}

/// `POST /api/guard/schedules/test-email`, `{"id"}`: sends a test e-mail now to everyone the schedule's alerts go
/// to (its address, and the owner's confirmed one when it mails the owner) and answers what the SMTP server said
/// for each; a 400 when e-mail is off or the schedule mails no one. Counts against the same budget as a test
/// webhook.
#[server(prefix = "/api", endpoint = "guard/schedules/test-email", input = Json, output = Json)]
pub async fn send_test_email(id: ScheduleId) -> Result<Vec<TestMailed>, AppError> {
    with_session(|state, session| async move {
        let schedule = state.store.get_schedule(session.workspace_id, id).await?;
        take_test_message_token(&state, session.workspace_id).await?;
        let sent = state
            .guard
            .send_test_mail(session.workspace_id, &schedule)
            .await
            .map_err(|e| AppError::Invalid(crate::model::ValidationError::new("id", e.to_string())))?;
        Ok(sent.into_iter().map(|(to, error)| TestMailed { to, error }).collect())
    })
    .await
}

/// Takes one of the workspace's test messages, or refuses saying when the next one may go.
#[cfg(feature = "ssr")]
async fn take_test_message_token(
    state: &crate::state::AppState,
    workspace: crate::model::WorkspaceId,
) -> Result<(), AppError> {
    let bucket = crate::rate_limit::Caller::TestMessages(workspace).key();
    let budget = crate::guard::notify::TEST_MESSAGE_BUDGET;
    match state.store.take_rate_token(&bucket, budget, state.clock.now_ms()).await? {
        Ok(()) => Ok(()),
        Err(wait) => {
            let reason = format!(
                "test messages are limited to {} at once, then one a minute: try again in {} s",
                budget.burst,
                wait.as_secs().max(1)
            );
            Err(AppError::Invalid(crate::model::ValidationError::new("id", reason)))
        }
    }
}

/// `POST /api/guard/estimate`, `{"set", "connector", "cadence", "workload"?}`: requests and USD a day of a
/// schedule (sending the saved workload `workload` when given; a dataset's has no dollar figure).
#[server(prefix = "/api", endpoint = "guard/estimate", input = Json, output = Json)]
pub async fn estimate_cost(
    set: BenchmarkSetId,
    connector: ConnectorId,
    cadence: Cadence,
    #[server(default)] workload: Option<WorkloadId>,
) -> Result<CostEstimate, AppError> {
    let (set_id, connector_id) = (set, connector);
    with_session(|state, session| async move {
        let set = state.store.get_set(session.workspace_id, set_id).await?;
        let connector = state.store.get_connector(session.workspace_id, connector_id).await?;
        let workload = match workload {
            Some(id) => Some(state.store.get_workload(session.workspace_id, id).await?.spec),
            None => None,
        };
        Ok(crate::guard::service::cost_estimate(&set, workload.as_ref(), cadence, connector.prices()))
    })
    .await
}

/// `POST /api/guard/baselines/pin`, `{"schedule", "run"}`: pins a completed run of the schedule's connector as
/// the baseline of its set there; earlier baselines stay in the history.
#[server(prefix = "/api", endpoint = "guard/baselines/pin", input = Json, output = Json)]
pub async fn pin_baseline(schedule: ScheduleId, run: RunId) -> Result<PinnedBaseline, AppError> {
    let (schedule_id, run_id) = (schedule, run);
    with_session(|state, session| async move {
        let now = state.clock.now_ms();
        let (b, warnings) =
            crate::guard::service::pin_run(&state.store, session.workspace_id, schedule_id, run_id, now).await?;
        Ok(PinnedBaseline { baseline: BaselineInfo::from(&b), warnings })
    })
    .await
}

/// `POST /api/guard/email-enabled`, `{}`: whether alert e-mail can go out (an SMTP server is configured).
#[server(prefix = "/api", endpoint = "guard/email-enabled", input = Json, output = Json)]
pub async fn email_enabled() -> Result<bool, AppError> {
    with_session(|state, _| async move { Ok(state.settings.smtp.is_some()) }).await
}

/// `POST /api/guard/alerts/list`, `{}`: the alert feed, open alerts first, one an incident (the thresholds one
/// evaluation breached: the others' keys are the first one's `alsoKeys`), each with why it opened drawn
/// (`whyHtml`).
#[server(prefix = "/api", endpoint = "guard/alerts/list", input = Json, output = Json)]
pub async fn list_alerts() -> Result<Vec<AlertView>, AppError> {
    with_session(|state, session| async move {
        let alerts = state.store.list_alerts(session.workspace_id, 200, state.clock.now_ms()).await?;
        // Folded and drawn here: the browser carries code for neither.
        Ok(crate::guard::fragments::feed(alerts))
    })
    .await
}

/// The longest a mute may last: 30 days.
#[cfg(feature = "ssr")]
const MAX_MUTE_MINUTES: u32 = 30 * 24 * 60;

/// `POST /api/guard/mutes/set`, `{"schedule", "threshold", "minutes"}`: silences a schedule (`threshold`
/// null) or one of its thresholds (`metric:op`) for 1 minute to 30 days from now, replacing an earlier mute of the
/// same; evaluations go on and alerts still open in the feed.
#[server(prefix = "/api", endpoint = "guard/mutes/set", input = Json, output = Json)]
pub async fn mute_schedule(schedule: ScheduleId, threshold: Option<String>, minutes: u32) -> Result<Mute, AppError> {
    with_session(|state, session| async move {
        let ws = session.workspace_id;
        let found = state.store.get_schedule(ws, schedule).await?;
        if let Some(key) = &threshold {
            if !found.input.thresholds.iter().any(|t| t.key() == *key) {
                let keys: Vec<String> = found.input.thresholds.iter().map(|t| t.key()).collect();
                return Err(AppError::Invalid(crate::model::ValidationError::new(
                    "threshold",
                    format!(
                        "not a threshold of this schedule (it has {}); leave it out to mute the whole schedule",
                        keys.join(", ")
                    ),
                )));
            }
        }
        if !(1..=MAX_MUTE_MINUTES).contains(&minutes) {
            return Err(AppError::Invalid(crate::model::ValidationError::new(
                "minutes",
                format!("from 1 to {MAX_MUTE_MINUTES} (30 days)"),
            )));
        }
        let now = state.clock.now_ms();
        let until = now + i64::from(minutes) * 60_000;
        Ok(state.store.mute(ws, schedule, threshold.as_deref(), until, now).await?)
    })
    .await
}

/// `POST /api/guard/mutes/clear`, `{"schedule", "threshold"}`: ends a mute now; `false` when there was none.
#[server(prefix = "/api", endpoint = "guard/mutes/clear", input = Json, output = Json)]
pub async fn unmute_schedule(schedule: ScheduleId, threshold: Option<String>) -> Result<bool, AppError> {
    with_session(|state, session| async move {
        Ok(state.store.unmute(session.workspace_id, schedule, threshold.as_deref()).await?)
    })
    .await
}

/// `POST /api/guard/mutes/list`, `{}`: the workspace's mutes in force, soonest to end first.
#[server(prefix = "/api", endpoint = "guard/mutes/list", input = Json, output = Json)]
pub async fn list_mutes() -> Result<Vec<Mute>, AppError> {
    with_session(|state, session| async move {
        Ok(state.store.list_mutes(session.workspace_id, state.clock.now_ms()).await?)
    })
    .await
}

/// `POST /api/guard/alerts/count`, `{}`: unacknowledged incidents (the sidebar badge; the breaches of one
/// evaluation are one, as the feed shows them).
#[server(prefix = "/api", endpoint = "guard/alerts/count", input = Json, output = Json)]
pub async fn open_alert_count() -> Result<u64, AppError> {
    with_session(|state, session| async move { Ok(state.store.open_incident_count(session.workspace_id).await?) }).await
}

/// `POST /api/guard/alerts/ack`, `{"id"}`: acknowledges one alert and the others of its incident; `false` when
/// they were already.
#[server(prefix = "/api", endpoint = "guard/alerts/ack", input = Json, output = Json)]
pub async fn acknowledge_alert(id: AlertId) -> Result<bool, AppError> {
    with_session(|state, session| async move {
        let now = state.clock.now_ms();
        Ok(crate::guard::service::acknowledge_alert(&state.store, session.workspace_id, id, now).await?)
    })
    .await
}

/// `POST /api/guard/alerts/ack-all`, `{}`: acknowledges every open alert; how many.
#[server(prefix = "/api", endpoint = "guard/alerts/ack-all", input = Json, output = Json)]
pub async fn acknowledge_all_alerts() -> Result<u64, AppError> {
    with_session(|state, session| async move {
        let now = state.clock.now_ms();
        Ok(crate::guard::service::acknowledge_all_alerts(&state.store, session.workspace_id, now).await?)
    })
    .await
}

#[cfg(feature = "ssr")]
impl From<crate::guard::notify::TestError> for AppError {
    fn from(error: crate::guard::notify::TestError) -> Self {
        match error {
            crate::guard::notify::TestError::NoUrl => {
                AppError::Invalid(crate::model::ValidationError::new("webhookUrl", error.to_string()))
            }
            crate::guard::notify::TestError::Store(s) => s.into(),
        }
    }
}
