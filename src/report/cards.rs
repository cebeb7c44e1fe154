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

/// The cards: TTFT (and, for a reasoning model, the first output of any kind), total, TPOT and ITL percentiles,
/// tok/s, error rate, cost, sample size.
pub fn stat_cards(stats: &ReportStats, summary: &RunSummary) -> Vec<StatCard> {
    let card = |id, label, value, how| StatCard { id, label, value, how };
    // Shown only when it says something TTFT does not: a reasoning model's first reasoning token came earlier.
    let first_output = (stats.first_output.is_some() && stats.first_output != stats.ttft).then(|| {
        card(
            "first-output",
            "First output p50 / p95 / p99",
            percentile_triple(stats.first_output),
            "send → first reasoning or content chunk",
        )
    });
    let mut cards = vec![card(
        "ttft",
        "TTFT p50 / p95 / p99",
        percentile_triple(stats.ttft),
        "send → first non-empty content chunk",
    )];
    cards.extend(first_output);
    cards.extend([
        card("total", "Total p50 / p95 / p99", percentile_triple(stats.total), "send → end of response"),
        card(
            "tpot",
            "TPOT p50 / p95 / p99",
            percentile_triple(stats.tpot),
            "(last − first output) / (tokens out − 1), per request",
        ),
        card(
            "itl",
            "ITL p50 / p95 / p99",
            percentile_triple(stats.itl),
            "every gap between tokens, pooled over requests (±1 %)",
        ),
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
    ]);
    cards
}
