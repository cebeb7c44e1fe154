//! What a schedule's page shows and what pinning answers: the baseline's figures without its samples, the runs
//! that could be pinned, and the whole page's view-model.

use serde::{Deserialize, Serialize};

use super::baseline_source::Pool;
use super::benchmark_set::BenchmarkSet;
use super::cost::CostEstimate;
use super::figures::GuardSummary;
use super::records::{Baseline, EvaluationView, WebhookDelivery};
use super::schedule::Schedule;
use crate::model::RunId;

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

impl From<&Baseline> for BaselineInfo {
    fn from(baseline: &Baseline) -> Self {
        Self {
            run_id: baseline.run_id,
            n: baseline.total_ms.len(),
            summary: baseline.summary,
            pinned_at_ms: baseline.pinned_at_ms,
        }
    }
}

/// A pooled baseline as the next evaluation would find it, without its samples.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PooledInfo {
    /// The evaluations in it.
    pub pool: Pool,
    /// Their successful requests.
    pub n: usize,
    /// The pooled summary (`guard::pool`).
    pub summary: GuardSummary,
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
    /// The copy of the saved workload it sends instead of the set's prompts, if it sends one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workload: Option<super::schedule_workload::ScheduleWorkload>,
    /// Its connector's name; `None` when the connector was deleted.
    pub connector_name: Option<String>,
    /// The baseline in force.
    pub baseline: Option<BaselineInfo>,
    /// The pool of earlier evaluations, when the schedule's baseline is rolling or a time window and the pool
    /// holds any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pool: Option<PooledInfo>,
    /// Earlier baselines of the set on this connector (with this workload), newest first.
    pub earlier_baselines: Vec<BaselineInfo>,
    /// What it costs.
    pub cost: CostEstimate,
    /// The latest evaluations, newest first.
    pub evaluations: Vec<EvaluationView>,
    /// The webhook delivery log, newest first.
    pub deliveries: Vec<WebhookDelivery>,
    /// Completed runs on the schedule's connector, newest first, to pin as baseline.
    pub pinnable_runs: Vec<PinnableRun>,
    /// Its mutes in force (the whole schedule, or thresholds), soonest to end first.
    pub mutes: Vec<super::records::Mute>,
}
