//! Comparing two runs (a baseline and a candidate, e.g. before and after a deploy): the figures side by side,
//! what differs in how they were measured, and significance tests on their latencies. The tests themselves run on
//! the server (`crate::stats::compare`); this module holds the shape the page receives and the pure parts.

use serde::{Deserialize, Serialize};

use crate::model::{ConnectionPolicy, LoadMode, RunId, RunView};
use crate::runs::report::ReportStats;
use crate::stats::RunSummary;

/// One side of a comparison.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ComparedRun {
    /// The run.
    pub id: RunId,
    /// Its title.
    pub title: String,
    /// Model measured.
    pub model: String,
    /// Endpoint.
    pub base_url: String,
    /// When it started, ISO 8601 UTC.
    pub created_at: String,
    /// TTFT and total percentiles, tok/s.
    pub stats: ReportStats,
    /// Error rate, cost, sample size.
    pub summary: RunSummary,
}

/// Two significance tests of one latency (two-sided), on the successful measured iterations of each run.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LatencyTests {
    /// Values from the baseline.
    pub n_baseline: usize,
    /// Values from the candidate.
    pub n_candidate: usize,
    /// Welch's t statistic (candidate − baseline); `None` with fewer than 2 values a side or no spread.
    pub welch_t: Option<f64>,
    /// Welch–Satterthwaite degrees of freedom.
    pub welch_df: Option<f64>,
    /// Welch's two-sided p-value.
    pub welch_p: Option<f64>,
    /// Mann-Whitney U of the candidate.
    pub mann_whitney_u: Option<f64>,
    /// Mann-Whitney two-sided p-value (normal approximation, continuity and tie corrections).
    pub mann_whitney_p: Option<f64>,
}

/// Everything the comparison page shows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Comparison {
    /// The reference run.
    pub baseline: ComparedRun,
    /// The run compared with it.
    pub candidate: ComparedRun,
    /// Why the two may not be comparable; empty when they were measured the same way.
    pub warnings: Vec<String>,
    /// Tests on total time.
    pub total: LatencyTests,
    /// Tests on TTFT (streamed runs only).
    pub ttft: LatencyTests,
    /// Empirical CDF points of total time, baseline then candidate (thinned for drawing; tests use every value).
    pub total_cdf: [Vec<(f64, f64)>; 2],
    /// The same for TTFT.
    pub ttft_cdf: [Vec<(f64, f64)>; 2],
}

fn mode_text(mode: LoadMode) -> String {
    match mode {
        LoadMode::Closed { concurrency } => format!("concurrency {concurrency}"),
        LoadMode::Open { rate_per_second, max_concurrency, .. } => {
            format!("{rate_per_second}/s, {} (≤ {max_concurrency} in flight)", mode.spacing())
        }
    }
}

/// What differs between two runs in ways that change latency by themselves, each as a sentence.
pub fn comparability_warnings(baseline: &RunView, candidate: &RunView) -> Vec<String> {
    let (a, b) = (&baseline.plan, &candidate.plan);
    let mut warnings = Vec::new();
    let mut differs = |what: &str, x: String, y: String| {
        if x != y {
            warnings.push(format!("Different {what}: {x} (baseline) vs {y} (candidate)."));
        }
    };
    differs("model", baseline.model.clone(), candidate.model.clone());
    differs("max_tokens", a.agent.token_budget.to_string(), b.agent.token_budget.to_string());
    differs(
        "streaming mode",
        if a.stream { "streamed" } else { "not streamed" }.into(),
        if b.stream { "streamed" } else { "not streamed" }.into(),
    );
    differs("load", mode_text(a.mode), mode_text(b.mode));
    differs("temperature", a.temperature.to_string(), b.temperature.to_string());
    differs("connections", connections_text(baseline), connections_text(candidate));
    if a.prompts != b.prompts || a.agent.system_prompt != b.agent.system_prompt {
        warnings.push(format!(
            "Different prompt sets: {} prompt(s) vs {}, or a different system prompt; output lengths and so total \
             times differ for that reason alone.",
            a.prompts.len(),
            b.prompts.len()
        ));
    }
    if baseline.id == candidate.id {
        warnings.push("Both sides are the same run.".into());
    }
    warnings
}

/// How a run's requests got their connections, as far as it moves the first round's latency.
fn connections_text(run: &RunView) -> String {
    match (run.plan.connections, run.opened_ahead) {
        (ConnectionPolicy::Fresh, _) => "a fresh connection per request".into(),
        (ConnectionPolicy::Reuse, Some(_)) => "reused, opened before the first request".into(),
        (ConnectionPolicy::Reuse, None) => "reused, the first requests opening them".into(),
    }
}

/// `candidate − baseline` and its percentage of the baseline (`None` when the baseline is 0).
pub fn delta(baseline: f64, candidate: f64) -> (f64, Option<f64>) {
    let change = candidate - baseline;
    (change, (baseline != 0.0).then(|| change / baseline * 100.0))
}

/// Points drawn per CDF line at most.
#[cfg(feature = "ssr")]
const CDF_POINTS: usize = 400;

#[cfg(feature = "ssr")]
fn tests(baseline: &[f64], candidate: &[f64]) -> LatencyTests {
    use crate::stats::compare::{mann_whitney_u, welch_t_test};
    let welch = welch_t_test(candidate, baseline);
    let mann_whitney = mann_whitney_u(candidate, baseline);
    LatencyTests {
        n_baseline: baseline.len(),
        n_candidate: candidate.len(),
        welch_t: welch.map(|w| w.t),
        welch_df: welch.map(|w| w.df),
        welch_p: welch.map(|w| w.p_value),
        mann_whitney_u: mann_whitney.map(|m| m.u),
        mann_whitney_p: mann_whitney.map(|m| m.p_value),
    }
}

/// The comparison of two runs from their stored iterations.
#[cfg(feature = "ssr")]
pub fn compare(
    baseline: (&RunView, Vec<crate::model::IterationRecord>),
    candidate: (&RunView, Vec<crate::model::IterationRecord>),
) -> Comparison {
    use crate::charts::ecdf_points;
    use crate::stats::successful_values;
    let warnings = comparability_warnings(baseline.0, candidate.0);
    let total = |r: &crate::model::IterationRecord| Some(r.total_ms);
    let ttft = |r: &crate::model::IterationRecord| r.ttft_ms;
    let (total_a, total_b) = (successful_values(&baseline.1, total), successful_values(&candidate.1, total));
    let (ttft_a, ttft_b) = (successful_values(&baseline.1, ttft), successful_values(&candidate.1, ttft));
    let side = |(run, records): (&RunView, Vec<crate::model::IterationRecord>)| {
        let (snapshot, summary) = crate::runs::report::snapshot(run, records);
        ComparedRun {
            id: run.id,
            title: run.title.clone(),
            model: run.model.clone(),
            base_url: run.base_url.clone(),
            created_at: snapshot.report.created_at,
            stats: snapshot.stats,
            summary,
        }
    };
    Comparison {
        warnings,
        total: tests(&total_a, &total_b),
        ttft: tests(&ttft_a, &ttft_b),
        total_cdf: [ecdf_points(&total_a, CDF_POINTS), ecdf_points(&total_b, CDF_POINTS)],
        ttft_cdf: [ecdf_points(&ttft_a, CDF_POINTS), ecdf_points(&ttft_b, CDF_POINTS)],
        baseline: side(baseline),
        candidate: side(candidate),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::fixtures::{completed_run, plan_input};
    use crate::model::RunPlanInput;

    fn run(model: &str, prompts: &[&str], token_budget: u32, concurrency: u32, stream: bool) -> RunView {
        completed_run(RunPlanInput { stream, ..plan_input(prompts, token_budget, concurrency) }, model)
    }

    #[test]
    fn runs_measured_the_same_way_need_no_warning() {
        let (a, b) = (run("m", &["hi"], 64, 4, true), run("m", &["hi"], 64, 4, true));
        assert_eq!(comparability_warnings(&a, &b), Vec::<String>::new());
    }

    #[test]
    fn every_difference_that_moves_latency_by_itself_is_named() {
        let a = run("gpt-4o-mini", &["hi"], 64, 4, true);
        let b = run("gpt-4o", &["hi", "bye"], 256, 8, false);
        let warnings = comparability_warnings(&a, &b).join("\n");
        for expected in [
            "Different model: gpt-4o-mini (baseline) vs gpt-4o (candidate).",
            "Different max_tokens: 64 (baseline) vs 256 (candidate).",
            "Different streaming mode: streamed (baseline) vs not streamed (candidate).",
            "Different load: concurrency 4 (baseline) vs concurrency 8 (candidate).",
            "Different prompt sets: 1 prompt(s) vs 2",
        ] {
            assert!(warnings.contains(expected), "missing {expected:?} in:\n{warnings}");
        }
        assert!(comparability_warnings(&a, &a).iter().any(|w| w.contains("same run")));
    }

    #[test]
    fn deltas_are_candidate_minus_baseline_with_percent_of_baseline() {
        assert_eq!(delta(200.0, 150.0), (-50.0, Some(-25.0)));
        assert_eq!(delta(0.0, 3.0), (3.0, None), "no percentage of nothing");
    }
}
