//! The headline figures of a report as labelled cards, each saying how it was computed: one list for the page,
//! the share view and the HTML export.

use crate::report::{percentile_triple, total_cost};
use crate::runs::report::ReportStats;
use crate::stats::RunSummary;

/// One figure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatCard {
    /// Stable id (`throughput`, `ttft`, `first-output`, `total`, `tpot`, `itl`, `tps`, `errors`, `cost`, `n`,
    /// `goodput`, `good-tokens`, `objectives`).
    pub id: &'static str,
    /// What it is.
    pub label: &'static str,
    /// The value, written for people.
    pub value: String,
    /// How it was computed.
    pub how: &'static str,
}

/// The cards: the system's output throughput with requests/s first, then TTFT (and, for a reasoning model, the
/// first output of any kind), total, TPOT and ITL percentiles, one request's output speed, error rate, cost, sample
/// size. While the run goes (`so_far`), a figure no successful request has made yet says so rather than "not
/// measurable", and the sample says it is still arriving.
pub fn stat_cards(stats: &ReportStats, summary: &RunSummary, so_far: bool) -> Vec<StatCard> {
    let card = |id, label, value, how| StatCard { id, label, value, how };
    let percentile_triple = |p: Option<crate::stats::Percentiles>| match (p, so_far) {
        (None, true) => "not yet: no successful request so far".to_string(),
        (p, _) => percentile_triple(p),
    };
    // Shown only when it says something TTFT does not: a reasoning model's first reasoning token came earlier.
    let first_output = (stats.first_output.is_some() && stats.first_output != stats.ttft).then(|| {
        card(
            "first-output",
            "First output p50 / p95 / p99",
            percentile_triple(stats.first_output),
            "send → first reasoning or content chunk",
        )
    });
    let throughput = match (stats.output_tok_per_sec, stats.requests_per_sec, stats.span_s) {
        (Some(tokens), Some(requests), Some(span)) => {
            format!("{tokens:.1} tok/s · {requests:.2} requests/s over {span:.1} s")
        }
        _ => "— (no send times recorded)".to_string(),
    };
    let mut cards = vec![card(
        "throughput",
        "Output throughput",
        throughput,
        "Σ tokens out of successful requests ÷ the first measured send → the last end",
    )];
    cards.push(card(
        "ttft",
        "TTFT p50 / p95 / p99",
        percentile_triple(stats.ttft),
        "send → first non-empty content chunk",
    ));
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
            "One request's output speed",
            stats.tok_per_sec.map_or("—".into(), |t| format!("{t:.1} tok/s")),
            "Σ tokens out / Σ total time of the requests: how fast one answer arrives, not the system's throughput",
        ),
        card("errors", "Error rate", format!("{:.1}%", summary.error_rate * 100.0), "failed / measured"),
        card("cost", "Total cost", total_cost(summary.total_cost_usd), "tokens × connector prices"),
        card(
            "n",
            "Sample size",
            format!("{} ({} ok){}", summary.measured, summary.succeeded, if so_far { " so far" } else { "" }),
            "measured iterations, warm-ups excluded",
        ),
    ]);
    if let Some(g) = &stats.goodput {
        cards.extend(goodput_cards(g));
    }
    cards
}

/// Goodput, good output tokens, and how each objective fared.
fn goodput_cards(g: &crate::stats::Goodput) -> [StatCard; 3] {
    let rate = |v: Option<f64>, unit: &str| {
        v.map_or_else(|| "— (no send times recorded)".to_string(), |v| format!("{v:.2} {unit}"))
    };
    let objectives: Vec<String> = g
        .objectives
        .iter()
        .map(|o| {
            let verdict = if o.met { "met" } else { "missed" };
            match (o.measured_ms, o.margin_ms, o.met_fraction) {
                (Some(v), Some(m), _) if m >= 0.0 => {
                    format!("{} {verdict}: {v:.1} ms ({m:.1} ms to spare)", o.slo.spelled())
                }
                (Some(v), Some(m), _) => format!("{} {verdict}: {v:.1} ms ({:.1} ms over)", o.slo.spelled(), -m),
                (_, _, Some(f)) => format!("{} {verdict} by {:.1}% of requests", o.slo.spelled(), f * 100.0),
                _ => format!("{} not measurable", o.slo.spelled()),
            }
        })
        .collect();
    [
        StatCard {
            id: "goodput",
            label: "Goodput",
            value: format!(
                "{} ({:.1}% good: {} of {})",
                rate(g.good_requests_per_sec, "good req/s"),
                g.good_fraction * 100.0,
                g.good,
                g.measured
            ),
            how: "succeeded and met every per-request objective, per second of the measured span",
        },
        StatCard {
            id: "good-tokens",
            label: "Good output tok/s",
            value: format!(
                "{} (all: {})",
                rate(g.good_output_tokens_per_sec, "tok/s"),
                rate(g.output_tokens_per_sec, "tok/s")
            ),
            how: "output tokens of good requests per second of the measured span",
        },
        StatCard {
            id: "objectives",
            label: "Objectives",
            value: objectives.join("; "),
            how: "percentiles judged on the run; per-request bounds on each request",
        },
    ]
}
