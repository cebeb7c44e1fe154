//! The figures a scheduled run is judged by: its summary (total-time percentiles and mean, tok/s, cost, error
//! rate; TTFT, TPOT and time to first output when streamed; a drafting server's acceptance rate) and the metric a
//! threshold watches in it. Pure data shared with the browser.

use crate::model::spelled;
use serde::{Deserialize, Serialize};

/// A figure of a run's summary that a threshold watches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Metric {
    /// 95th percentile of total time, ms.
    P95Ms,
    /// Median total time, ms.
    P50Ms,
    /// Mean total time, ms.
    MeanMs,
    /// One request's output speed, tok/s: Σ output tokens / Σ total time of the run's successful requests. Guard
    /// sends its requests one at a time, so this is how fast one answer arrives — not a server's throughput
    /// under load, which a sweep or a capacity search measures.
    TokS,
    /// Total cost of the run, USD.
    CostUsd,
    /// Failed / measured, 0 to 1.
    ErrorRate,
    /// 95th percentile of time to first token (first answer content), ms; a streamed schedule's.
    TtftP95Ms,
    /// 95th percentile of time per output token after the first, ms; a streamed schedule's.
    TpotP95Ms,
    /// 95th percentile of time to first output of any kind (reasoning or answer), ms; a streamed schedule's.
    FirstOutputP95Ms,
    /// Speculative decoding: accepted / drafted tokens over the run, 0 to 1, by the server's own metrics (a
    /// self-hosted connector a Spec Lab probe identified).
    AcceptanceRate,
}

impl Metric {
    /// Whether the figure is made of the run's total times, so Welch's test on them speaks to it.
    pub fn is_latency(self) -> bool {
        matches!(self, Metric::P95Ms | Metric::P50Ms | Metric::MeanMs | Metric::TokS)
    }

    /// Whether the figure is made of per-request times only a streamed run has, so Welch's test on those times
    /// speaks to it.
    pub fn is_streamed(self) -> bool {
        matches!(self, Metric::TtftP95Ms | Metric::TpotP95Ms | Metric::FirstOutputP95Ms)
    }

    /// Its unit after a number, with its space (` ms`); none for the error rate, a fraction.
    pub fn unit(self) -> &'static str {
        match self {
            Metric::P95Ms
            | Metric::P50Ms
            | Metric::MeanMs
            | Metric::TtftP95Ms
            | Metric::TpotP95Ms
            | Metric::FirstOutputP95Ms => " ms",
            Metric::TokS => " tok/s",
            Metric::CostUsd => " USD",
            Metric::ErrorRate | Metric::AcceptanceRate => "",
        }
    }

    /// In words, as a threshold's sentence names it (`total time p95`).
    pub fn label(self) -> &'static str {
        match self {
            Metric::P95Ms => "total time p95",
            Metric::P50Ms => "total time p50",
            Metric::MeanMs => "mean total time",
            Metric::TokS => "one request's output speed (tok/s)",
            Metric::CostUsd => "the run's cost (USD)",
            Metric::ErrorRate => "the error rate",
            Metric::TtftP95Ms => "TTFT p95",
            Metric::TpotP95Ms => "TPOT p95",
            Metric::FirstOutputP95Ms => "first output p95",
            Metric::AcceptanceRate => "the acceptance rate",
        }
    }

    /// Whether a rise of the figure is the bad direction (all but tok/s and the acceptance rate).
    pub fn worse_when_higher(self) -> bool {
        !matches!(self, Metric::TokS | Metric::AcceptanceRate)
    }

    /// The figure in `summary`.
    pub fn of(self, summary: &GuardSummary) -> Option<f64> {
        match self {
            Metric::P95Ms => summary.p95_ms,
            Metric::P50Ms => summary.p50_ms,
            Metric::MeanMs => summary.mean_ms,
            Metric::TokS => summary.tok_s,
            Metric::CostUsd => summary.cost_usd,
            Metric::ErrorRate => Some(summary.error_rate),
            Metric::TtftP95Ms => summary.ttft_p95_ms,
            Metric::TpotP95Ms => summary.tpot_p95_ms,
            Metric::FirstOutputP95Ms => summary.first_output_p95_ms,
            Metric::AcceptanceRate => summary.acceptance_rate,
        }
    }
}

spelled!(Metric {
    P95Ms => "p95_ms",
    P50Ms => "p50_ms",
    MeanMs => "mean_ms",
    TokS => "tok_s",
    CostUsd => "cost_usd",
    ErrorRate => "error_rate",
    TtftP95Ms => "ttft_p95_ms",
    TpotP95Ms => "tpot_p95_ms",
    FirstOutputP95Ms => "first_output_p95_ms",
    AcceptanceRate => "acceptance_rate",
});

/// What a run is judged by (`p95Ms, meanMs, tokS, costUsd, errorRate`, as `docs/GUARD.md` lists, and for a
/// streamed schedule `ttftP95Ms, tpotP95Ms, firstOutputP95Ms`, for a probed self-hosted server `acceptanceRate`,
/// absent otherwise). Latencies are total times of the successful measured requests; `null` where nothing was
/// measurable.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GuardSummary {
    /// 95th percentile of total time, ms (linear interpolation).
    pub p95_ms: Option<f64>,
    /// Median total time, ms (linear interpolation); absent in summaries recorded before it was kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p50_ms: Option<f64>,
    /// Mean total time, ms.
    pub mean_ms: Option<f64>,
    /// Output tokens per second, Σ tokens out / Σ total time.
    pub tok_s: Option<f64>,
    /// Σ cost, USD; `null` without prices.
    pub cost_usd: Option<f64>,
    /// Failed / measured.
    pub error_rate: f64,
    /// 95th percentile of time to first token, ms (streamed runs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttft_p95_ms: Option<f64>,
    /// 95th percentile of time per output token, ms (streamed runs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tpot_p95_ms: Option<f64>,
    /// 95th percentile of time to first output, ms (streamed runs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_output_p95_ms: Option<f64>,
    /// Accepted / drafted tokens over the run by the server's metrics (a probed server that drafts).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub acceptance_rate: Option<f64>,
}
