//! A run repeated R times, summarised over its repetitions: each headline figure as mean, t-based 95 % interval
//! and coefficient of variation over the repetitions' own values, and whether the repetitions' requests look like
//! one distribution (Kruskal–Wallis on TTFT and total time). The repetitions, not the pooled requests, are the
//! observations: requests of one run share its conditions (the endpoint's load, its cache, the network), so
//! pooling them would shrink the interval below what another run would show.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

use super::ReportSnapshot;
use crate::stats::repeated::{kruskal_wallis, repeated_figure, KruskalWallis, RepeatedFigure, DISAGREEMENT_P};
use crate::stats::{successful_values, summarize, RunSummary};

/// The figures over the repetitions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RepeatedReport {
    /// Repetitions summarised.
    pub repetitions: usize,
    /// Each figure by name (`ttftP50Ms`, `totalP95Ms`, `outputTokPerSec`, `errorRate`, …); a figure no repetition
    /// could measure is absent.
    pub figures: BTreeMap<String, RepeatedFigure>,
    /// Kruskal–Wallis over the repetitions' successful requests, for `ttft` and `total`.
    pub agreement: BTreeMap<String, KruskalWallis>,
    /// Warnings and how the figures were made, in sentences.
    pub notes: Vec<String>,
}

/// Reads one figure of a request.
type Pick = fn(&crate::model::IterationRecord) -> Option<f64>;

/// The headline figures of one run, by name.
fn headline(summary: &RunSummary, snapshot: &ReportSnapshot) -> Vec<(&'static str, Option<f64>)> {
    let p = |v: Option<crate::stats::Percentiles>, f: fn(crate::stats::Percentiles) -> f64| v.map(f);
    vec![
        ("ttftP50Ms", p(summary.ttft, |p| p.p50)),
        ("ttftP95Ms", p(summary.ttft, |p| p.p95)),
        ("totalP50Ms", p(summary.total, |p| p.p50)),
        ("totalP95Ms", p(summary.total, |p| p.p95)),
        ("tpotP50Ms", p(summary.tpot, |p| p.p50)),
        ("itlP50Ms", p(summary.itl, |p| p.p50)),
        ("outputTokPerSec", summary.tok_per_sec),
        ("errorRate", Some(summary.error_rate)),
        ("goodFraction", snapshot.stats.goodput.as_ref().map(|g| g.good_fraction)),
    ]
}

/// Summarises `runs` (each repetition's snapshot).
pub fn repeated_report(runs: &[ReportSnapshot]) -> RepeatedReport {
    let summaries: Vec<RunSummary> = runs.iter().map(|s| summarize(&s.results)).collect();
    let mut values: BTreeMap<&'static str, Vec<f64>> = BTreeMap::new();
    for (summary, snapshot) in summaries.iter().zip(runs) {
        for (name, value) in headline(summary, snapshot) {
            if let Some(v) = value.filter(|v| v.is_finite()) {
                values.entry(name).or_default().push(v);
            }
        }
    }
    let figures: BTreeMap<String, RepeatedFigure> =
        values.iter().filter_map(|(name, v)| Some(((*name).to_string(), repeated_figure(v)?))).collect();
    let mut agreement = BTreeMap::new();
    let mut notes = vec![
        format!(
            "{} repetitions. Each figure is the mean of the repetitions' own values with a t-based 95 % interval \
             (n − 1 degrees of freedom) and the coefficient of variation (sample SD / mean) between repetitions: the \
             repetitions are the observations, because requests of one run share its conditions and are not \
             independent.",
            runs.len()
        ),
        "Agreement: a Kruskal–Wallis test on the successful requests' TTFT and total time asks whether every \
         repetition drew from one distribution; p < 0.01 is reported as a disagreement beyond noise."
            .to_string(),
    ];
    let metrics: [(&str, &str, Pick); 2] =
        [("ttft", "TTFT", |r| r.ttft_ms), ("total", "total time", |r| Some(r.total_ms))];
    for (key, label, pick) in metrics {
        let groups: Vec<Vec<f64>> = runs.iter().map(|s| successful_values(&s.results, pick)).collect();
        if let Some(test) = kruskal_wallis(&groups) {
            if test.p_value < DISAGREEMENT_P {
                notes.push(format!(
                    "The repetitions disagree beyond noise on {label} (Kruskal–Wallis p = {:.2e}): the endpoint \
                     changed between them (load, throttling, caching), so one run would not have been \
                     representative.",
                    test.p_value
                ));
            }
            agreement.insert(key.to_string(), test);
        }
    }
    if runs.len() < 3 {
        notes.push("With fewer than 3 repetitions the interval is very wide (t with 1 degree of freedom).".into());
    }
    RepeatedReport { repetitions: runs.len(), figures, agreement, notes }
}
