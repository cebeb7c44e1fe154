//! The report snapshot of a run, in the shape reports, exports and shares use (`report`, `agent`, `connector`,
//! `stats`, `results`, `honesty`), built from the run and its records.

use serde::{Deserialize, Serialize};

use crate::model::{iso8601_utc, IterationRecord, RunView, ServerMetrics};
use crate::runs::report::honesty_notes;
use crate::stats::{goodput, is_good, summarize, Goodput, Percentiles, RunSummary};

/// `report`: which run this is.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReportHeader {
    /// The run id.
    pub id: String,
    /// Title.
    pub title: String,
    /// Start of the run, ISO 8601 UTC.
    pub created_at: String,
}

/// `agent`: what was measured.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReportAgent {
    /// Name.
    pub name: String,
    /// System prompt, if any.
    pub system_prompt: Option<String>,
    /// Tools sent with each request.
    pub tools: Vec<serde_json::Value>,
    /// `max_tokens`.
    pub token_budget: u32,
}

/// `connector`: where (never with the key).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReportConnector {
    /// Base URL.
    pub base_url: String,
    /// Model.
    pub model: String,
}

/// `stats`: the headline figures.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReportStats {
    /// TTFT p50/p95/p99, ms; `null` when not measurable.
    pub ttft: Option<Percentiles>,
    /// Total time p50/p95/p99, ms.
    pub total: Option<Percentiles>,
    /// Output throughput: Σ output tokens of successful requests over the measured span (`spanS`), tok/s.
    #[serde(default)]
    pub output_tok_per_sec: Option<f64>,
    /// Successful requests over the measured span, per second.
    #[serde(default)]
    pub requests_per_sec: Option<f64>,
    /// The measured span, s: the first measured send to the last measured end.
    #[serde(default)]
    pub span_s: Option<f64>,
    /// One request's output speed: Σ output tokens / Σ request time over successful requests, tok/s (not the
    /// system's throughput: `outputTokPerSec`).
    pub tok_per_sec: Option<f64>,
    /// Time per output token after the first, p50/p95/p99, ms (definition in `honesty`).
    #[serde(default)]
    pub tpot: Option<Percentiles>,
    /// Per-token inter-token latency pooled over every gap, p50/p95/p99, ms (definition in `honesty`).
    #[serde(default)]
    pub itl: Option<Percentiles>,
    /// Time to the first output of any kind (reasoning or answer), p50/p95/p99, ms.
    #[serde(default)]
    pub first_output: Option<Percentiles>,
    /// Goodput and each objective's attainment, when the run has objectives (definition in `honesty`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub goodput: Option<Goodput>,
}

/// The whole snapshot.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReportSnapshot {
    /// Which run.
    pub report: ReportHeader,
    /// Whether its figures answer the question the run asked, and why (absent while it runs, and in a snapshot
    /// written before verdicts were given).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub validity: Option<crate::model::RunValidity>,
    /// The agent.
    pub agent: ReportAgent,
    /// The endpoint.
    pub connector: ReportConnector,
    /// Headline figures.
    pub stats: ReportStats,
    /// Every iteration, warm-ups included (flagged).
    pub results: Vec<IterationRecord>,
    /// How the figures were made and what could not be measured.
    pub honesty: Vec<String>,
    /// What the server's own metrics said during the run, for a connector whose server a probe identified
    /// (absent otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server: Option<ServerMetrics>,
    /// What a workload asked beside what the server did, for a run with a workload (absent otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workload: Option<super::workload::WorkloadReport>,
}

/// What a share link shows: the snapshot and the summary figures beside it, nothing of the workspace.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SharedReport {
    /// The report snapshot.
    pub snapshot: ReportSnapshot,
    /// Error rate, cost, sample size beside the snapshot's `stats`.
    pub summary: RunSummary,
}

/// Builds the snapshot of `run` from its iterations.
pub fn snapshot(run: &RunView, mut results: Vec<IterationRecord>) -> (ReportSnapshot, RunSummary) {
    let summary = summarize(&results);
    // Goodput's rates are over the same span as the throughput beside them.
    let goodput = goodput(&results, &run.plan.slos, summary.span_s.map(|s| s * 1e3));
    if !run.plan.slos.is_empty() {
        for record in results.iter_mut().filter(|r| !r.warmup) {
            record.good = Some(is_good(record, &run.plan.slos));
        }
    }
    let workload = super::workload::workload_report(run, &results);
    let validity =
        (run.status != crate::model::RunStatus::Running).then(|| super::validity::judge_run(run, &results, &summary));
    let mut honesty = honesty_notes(run, &results, &summary);
    honesty.extend(workload.iter().flat_map(super::workload::workload_notes));
    honesty.extend(super::cache::cache_notes(run, &results));
    let snapshot = ReportSnapshot {
        report: ReportHeader {
            id: run.id.to_string(),
            title: run.title.clone(),
            created_at: iso8601_utc(run.created_at_ms),
        },
        validity,
        agent: ReportAgent {
            name: run.plan.agent.name.clone(),
            system_prompt: run.plan.agent.system_prompt.clone(),
            tools: run.plan.agent.tools.clone(),
            token_budget: run.plan.agent.token_budget,
        },
        connector: ReportConnector { base_url: run.base_url.clone(), model: run.model.clone() },
        stats: ReportStats {
            ttft: summary.ttft,
            total: summary.total,
            output_tok_per_sec: summary.output_tok_per_sec,
            requests_per_sec: summary.requests_per_sec,
            span_s: summary.span_s,
            tok_per_sec: summary.tok_per_sec,
            tpot: summary.tpot,
            itl: summary.itl,
            first_output: summary.first_output,
            goodput,
        },
        results,
        honesty,
        server: None,
        workload,
    };
    (snapshot, summary)
}
