//! What Guard records and reports: each threshold's verdict, breaches and the decision of an evaluation,
//! pinned baselines, alerts as the feed shows them, evaluations, webhook deliveries, and the outcome a tick or
//! Run now reports. Pure data, shared with the browser.

pub use crate::stats::Shift;
use serde::{Deserialize, Serialize};

use super::baseline_source::ReferenceFrom;
use super::figures::{GuardSummary, Metric};
use super::policy::InvalidRun;
use super::schedule::{threshold_key, Op, Severity, Threshold};
use super::states::{AlertKind, EvaluationStatus, Trigger};
use super::window_test::WindowTest;
use crate::model::{AlertId, BaselineId, BenchmarkSetId, ConnectorId, EvaluationId, RunId, ScheduleId};

/// One threshold's verdict in an evaluation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ThresholdCheck {
    /// The rule.
    pub threshold: Threshold,
    /// The baseline's figure.
    pub baseline: Option<f64>,
    /// The observed figure.
    pub observed: Option<f64>,
    /// Observed − baseline.
    pub delta: Option<f64>,
    /// Delta as a percentage of the baseline.
    pub pct_change: Option<f64>,
    /// The threshold was crossed.
    pub crossed: bool,
    /// It breached: crossed, and significant where significance is required.
    pub breached: bool,
    /// Why, in words.
    pub reason: String,
}

/// A breach, as alerts and webhooks carry it (`metric, op, threshold, delta, pctChange, pValue, severity`, as
/// `docs/GUARD.md` describes).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Breach {
    /// The metric.
    pub metric: Metric,
    /// The comparison.
    pub op: Op,
    /// The threshold's value.
    pub threshold: f64,
    /// Observed − baseline.
    pub delta: f64,
    /// Delta as a percentage of the baseline (`null` when the baseline is 0).
    pub pct_change: Option<f64>,
    /// Welch's two-sided p-value of observed vs baseline total times (`null` when it could not be computed).
    pub p_value: Option<f64>,
    /// The threshold's severity.
    pub severity: Severity,
    /// The baseline's figure.
    pub baseline: f64,
    /// The observed figure: this evaluation's, or for a `change_point` the level after the change (the mean of
    /// the evaluations since it, this one included).
    pub observed: f64,
    /// The threshold's window test, when it has one (`"z_score:20:5"`): part of its identity.
    #[serde(default)]
    #[cfg_attr(feature = "ssr", serde(skip_serializing_if = "Option::is_none"))]
    pub test: Option<WindowTest>,
    /// A `change_point` breach: this evaluation's own figure, beside the level after the change in `observed`.
    #[serde(default)]
    #[cfg_attr(feature = "ssr", serde(skip_serializing_if = "Option::is_none"))]
    pub latest: Option<f64>,
}

impl Breach {
    /// The threshold's identity (`metric:op`, `metric:op:kind` with a window test), as [`Threshold::key`] gives.
    pub fn key(&self) -> String {
        threshold_key(self.metric, self.op, self.test.as_ref())
    }
}

/// A breach that has not yet opened its alert: breached in `breaches` of the last `of` conclusive evaluations,
/// where the policy asks for `needed`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PendingBreach {
    /// The threshold.
    pub threshold_key: String,
    /// Breaches counted, this one included.
    pub breaches: u32,
    /// The window looked at: the last `of` conclusive evaluations (fewer when the schedule has fewer).
    pub of: u32,
    /// Breaches the policy needs in its window.
    pub needed: u32,
}

/// What an evaluation decided, stored with it so a user can see why something did or did not alert.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Decision {
    /// Every threshold, breached or not.
    pub checks: Vec<ThresholdCheck>,
    /// The breached ones.
    pub breaches: Vec<Breach>,
    /// Welch's p-value of the total times.
    pub p_value: Option<f64>,
    /// Sample sizes: baseline, observed.
    pub n: (usize, usize),
    /// How far the total times moved from the baseline's (Hodges–Lehmann, with its 1 − α interval); absent in
    /// decisions stored before it was computed, and when the samples are too small for an interval.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shift: Option<Shift>,
    /// When the run's consecutive requests were alike beyond chance: how much, and the size Welch counted it as.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub serial: Option<Serial>,
}

/// A run whose consecutive requests were correlated beyond what independent requests show by chance.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Serial {
    /// The lag-1 autocorrelation of its total times in send order.
    pub lag1: f64,
    /// The effective sample size, `n·(1 − r₁)/(1 + r₁)`.
    pub effective_n: f64,
}

/// A pinned baseline: the total times and summary of a finished run, for one set on one connector.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Baseline {
    /// Id.
    pub id: BaselineId,
    /// The set.
    pub set_id: BenchmarkSetId,
    /// The connector.
    pub connector_id: ConnectorId,
    /// The pinned run (its figures are copied here and outlive it).
    pub run_id: RunId,
    /// Total time of each successful measured iteration of the run, ms.
    pub total_ms: Vec<f64>,
    /// The run's summary.
    pub summary: GuardSummary,
    /// A streamed run's per-request TTFT, TPOT and time to first output; `None` for an unstreamed one.
    pub streamed: Option<super::samples::StreamedSamples>,
    /// The baseline in force (earlier pins are kept as history).
    pub current: bool,
    /// Pinned, unix ms.
    pub pinned_at_ms: i64,
}

/// Why a schedule's "cannot measure" alert is open.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CannotMeasure {
    /// Why the latest evaluation could not measure, in words.
    pub reason: String,
    /// Evaluations in a row that could not, the latest included.
    pub evaluations: u32,
}

/// What one evaluation tells a schedule's channels: one webhook message each, one e-mail item per alert.
#[derive(Debug, Clone, PartialEq)]
pub enum Notice {
    /// Alerts opened, or open ones breached again after they had recovered: their breaches.
    Opened(Vec<Breach>),
    /// Open alerts whose thresholds have been healthy as long as the policy asks: their last breaches.
    Recovered(Vec<Breach>),
    /// The schedule could not measure, several evaluations in a row.
    CannotMeasure(CannotMeasure),
    /// It measured again after its "cannot measure" alert.
    MeasurableAgain,
}

impl Notice {
    /// The notice split so each item is about one alert (PagerDuty keys an event by its alert).
    pub fn one_per_alert(&self) -> Vec<Notice> {
        match self {
            Notice::Opened(breaches) => breaches.iter().map(|b| Notice::Opened(vec![b.clone()])).collect(),
            Notice::Recovered(breaches) => breaches.iter().map(|b| Notice::Recovered(vec![b.clone()])).collect(),
            other => vec![other.clone()],
        }
    }
}

/// A schedule, or one of its thresholds, silenced until a time (maintenance): evaluations go on and alerts open in
/// the feed, but nothing is sent while it lasts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Mute {
    /// The schedule.
    pub schedule_id: ScheduleId,
    /// The threshold (`metric:op`); `null`: the whole schedule, its "cannot measure" alert included.
    pub threshold_key: Option<String>,
    /// Until, unix ms.
    pub until_ms: i64,
}

/// One alert, as the feed shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AlertView {
    /// Id.
    pub id: AlertId,
    /// The schedule.
    pub schedule_id: ScheduleId,
    /// Its name.
    pub schedule_name: String,
    /// What it is about.
    pub kind: AlertKind,
    /// The latest breach of the threshold (with its p-value); `null` for a "cannot measure" alert.
    pub breach: Option<Breach>,
    /// Why the schedule cannot measure; `null` for a breach.
    pub cannot_measure: Option<CannotMeasure>,
    /// The run that breached it last (or the latest that could not be judged).
    pub run_id: Option<RunId>,
    /// Observed summary of that run, when it had one.
    pub observed: Option<GuardSummary>,
    /// The baseline's summary it was compared with (a breach's).
    pub baseline: Option<GuardSummary>,
    /// Evaluations that breached it while it was open (for "cannot measure": that could not measure).
    pub breach_count: u64,
    /// When its recovered notice was decided (for "cannot measure": when the schedule measured again), while it has
    /// not breached since.
    pub recovered_at_ms: Option<i64>,
    /// Someone was told it is open (`false`: it opened while muted and has not breached since the mute ended).
    pub announced: bool,
    /// Its threshold or schedule is muted until then, unix ms.
    pub muted_until_ms: Option<i64>,
    /// Acknowledged by hand.
    pub acknowledged: bool,
    /// When, unix ms.
    pub acknowledged_at_ms: Option<i64>,
    /// Raised, unix ms.
    pub created_at_ms: i64,
    /// Last breached, unix ms.
    pub updated_at_ms: i64,
    /// The first healthy evaluation of the schedule since the last breach, if any.
    pub healthy_since_ms: Option<i64>,
    /// The evaluation that breached it last (or could not measure last): alerts that share it are one incident.
    /// (The server folds incidents; the browser build carries none of the fields it folds them with.)
    #[cfg(feature = "ssr")]
    pub evaluation_id: EvaluationId,
    /// Why that evaluation may have breached: what changed since the baseline, the run's verdict, its slowest
    /// requests (none for "cannot measure", and for alerts stored before it was kept). Kept on the server; the page
    /// gets it drawn (`why_html`).
    #[cfg(feature = "ssr")]
    #[serde(skip)]
    pub context: Option<super::answered::AlertContext>,
    /// The other thresholds the same evaluation breached: the feed shows an incident as one card, this alert's
    /// (`model::folded`; server only: the browser carries no code for them).
    #[cfg(feature = "ssr")]
    #[serde(skip)]
    pub also: Vec<Breach>,
    /// Why it opened, drawn by the server (`guard::fragments::why`): the other thresholds its evaluation breached,
    /// what changed since the baseline, the run's verdict and its slowest requests with a link to them. Absent for
    /// a "cannot measure" alert and for alerts stored before why was kept. (HTML: the browser carries no code to
    /// draw it.)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub why_html: Option<crate::wire::ServerHtml>,
    /// The thresholds (`metric:op`) of the other alerts of its incident: muting the card mutes them too.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub also_keys: Vec<String>,
}

/// One evaluation of a schedule: what was compared and what was decided.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EvaluationView {
    /// Id.
    pub id: EvaluationId,
    /// The slot it ran for.
    pub slot_at_ms: i64,
    /// What started it.
    pub trigger: Trigger,
    /// Started, unix ms.
    pub started_at_ms: i64,
    /// Finished, unix ms.
    pub finished_at_ms: Option<i64>,
    /// Where it stands.
    pub status: EvaluationStatus,
    /// Why it failed or was inconclusive, in words.
    pub error: Option<String>,
    /// Why the run could not be judged, when inconclusive.
    pub invalid: Option<InvalidRun>,
    /// Breaches that did not yet open their alert (the policy's sustain rule).
    pub pending: Vec<PendingBreach>,
    /// The run it made.
    pub run_id: Option<RunId>,
    /// Baseline sample size and summary.
    pub baseline_n: Option<u64>,
    /// The baseline's summary.
    pub baseline_summary: Option<GuardSummary>,
    /// Observed sample size (successful requests).
    pub observed_n: Option<u64>,
    /// The observed summary.
    pub observed_summary: Option<GuardSummary>,
    /// Welch's p-value.
    pub p_value: Option<f64>,
    /// Every threshold's verdict.
    pub decision: Option<Decision>,
    /// What it was compared with (a pinned run, or a pool of earlier evaluations), or the pool it is filling;
    /// absent for evaluations recorded before pools existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline_from: Option<super::baseline_source::ReferenceFrom>,
}

/// One webhook message and how its delivery went.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WebhookDelivery {
    /// The message id (`webhook-id`).
    pub id: String,
    /// The first alert it announced; `None` for a test message.
    pub alert_id: Option<AlertId>,
    /// Where it goes.
    pub url: String,
    /// Attempts so far.
    pub attempts: u32,
    /// Delivered (a 2xx reply), unix ms.
    pub delivered_at_ms: Option<i64>,
    /// Given up after the last retry, unix ms.
    pub gave_up_at_ms: Option<i64>,
    /// The next attempt, unix ms, while neither.
    pub next_attempt_at_ms: i64,
    /// The last failure, in words.
    pub last_error: Option<String>,
    /// Written, unix ms.
    pub created_at_ms: i64,
}

/// How one schedule's evaluation went, as the hook and Run now report it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScheduleOutcome {
    /// The schedule.
    pub schedule_id: ScheduleId,
    /// The evaluation row.
    pub evaluation_id: EvaluationId,
    /// The slot claimed, unix ms.
    pub slot_at_ms: i64,
    /// What started it.
    pub trigger: Trigger,
    /// How it ended (never `running`).
    pub status: EvaluationStatus,
    /// Why it failed.
    pub error: Option<String>,
    /// The run it made.
    // The browser's Run now reads the status, p-value and counts only: the schedule page is at its bundle budget.
    #[cfg_attr(all(feature = "hydrate", not(feature = "ssr")), serde(skip_deserializing))]
    pub run_id: Option<RunId>,
    /// Welch's p-value, when compared.
    pub p_value: Option<f64>,
    /// Alerts opened.
    pub alerts_opened: Vec<AlertId>,
    /// Open alerts breached again (observed updated, nothing sent).
    pub alerts_updated: Vec<AlertId>,
    /// Open alerts whose thresholds were healthy long enough: a recovered notice went out.
    #[cfg_attr(all(feature = "hydrate", not(feature = "ssr")), serde(skip_deserializing))]
    pub alerts_recovered: Vec<AlertId>,
}

/// The figures an evaluation is judged against: total times and their summary, and where they came from.
#[derive(Debug, Clone, PartialEq)]
pub struct Reference {
    /// Successful measured total times, ms.
    pub total_ms: Vec<f64>,
    /// Their summary.
    pub summary: GuardSummary,
    /// Per-request TTFT, TPOT and time to first output, when the runs were streamed.
    pub streamed: Option<super::samples::StreamedSamples>,
    /// A pinned run or a pool.
    pub from: ReferenceFrom,
}

impl Reference {
    /// The run whose requests stand for the reference's per-prompt times: the pinned run, or the pool's newest.
    pub fn run_id(&self) -> RunId {
        match &self.from {
            ReferenceFrom::Pinned { run_id, .. } => *run_id,
            ReferenceFrom::Pooled(pool) => pool.latest_run,
        }
    }

    /// The pin, when it is one.
    pub fn baseline_id(&self) -> Option<BaselineId> {
        match &self.from {
            ReferenceFrom::Pinned { baseline_id, .. } => Some(*baseline_id),
            ReferenceFrom::Pooled(_) => None,
        }
    }
}

impl From<Baseline> for Reference {
    fn from(pinned: Baseline) -> Self {
        Self {
            from: ReferenceFrom::Pinned { baseline_id: pinned.id, run_id: pinned.run_id },
            total_ms: pinned.total_ms,
            summary: pinned.summary,
            streamed: pinned.streamed,
        }
    }
}
