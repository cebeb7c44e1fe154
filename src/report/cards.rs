//! The headline figures of a report as labelled cards, each saying how it was computed: one list for the page,
//! the share view and the HTML export.

use super::format::{percentile_triple, total_cost};
use super::ReportStats;
use crate::stats::RunSummary;

/// One figure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatCard {
    /// Stable id (`ttft`, `total`, `tps`, `errors`, `cost`, `n`).
    pub id: &'static str,
    /// What it is.
    pub label: &'static str,
    /// The value, written for people.
    pub value: String,
    /// How it was computed.
    pub how: &'static str,
}

/// The six cards: TTFT and total percentiles, tok/s, error rate, cost, sample size.
pub fn stat_cards(stats: &ReportStats, summary: &RunSummary) -> [StatCard; 6] {
    let card = |id, label, value, how| StatCard { id, label, value, how };
    [
        card("ttft", "TTFT p50 / p95 / p99", percentile_triple(stats.ttft), "send → first non-empty content chunk"),
        card("total", "Total p50 / p95 / p99", percentile_triple(stats.total), "send → end of response"),
        card(
            "tps",
            "Output tok/s",
            stats.tok_per_sec.map_or("—".into(), |t| format!("{t:.1}")),
            "Σ tokens out / Σ total time",
        ),
        card("errors", "Error rate", format!("{:.1}%", summary.error_rate * 100.0), "failed / measured"),
        card("cost", "Total cost", total_cost(summary.total_cost_usd), "tokens × connector prices"),
        card(
            "n",
            "Sample size",
            format!("{} ({} ok)", summary.measured, summary.succeeded),
            "measured iterations, warm-ups excluded",
        ),
    ]
}
