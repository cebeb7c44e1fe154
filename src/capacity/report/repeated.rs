//! A run repeated R times, summarised over its repetitions: each headline figure as mean, t-based 95 % interval
//! and coefficient of variation over the repetitions' own values, and whether the repetitions' requests look like
//! one distribution (Kruskal–Wallis on TTFT and total time). The repetitions, not the pooled requests, are the
//! observations: requests of one run share its conditions (the endpoint's load, its cache, the network), so
//! pooling them would shrink the interval below what another run would show. Two repeated runs are compared the
//! same way: Welch's t-test over the repetitions' values. The types reach the browser (the sweep page shows
//! them); the computations stay on the server.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

use crate::model::IterationRecord;
#[cfg(feature = "ssr")]
use crate::stats::repeated::{kruskal_wallis, repeated_figure, DISAGREEMENT_P};
use crate::stats::repeated::{KruskalWallis, RepeatedFigure};
use crate::stats::{successful_values, summarize};

/// The figures over the repetitions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RepeatedReport {
    /// Repetitions summarised.
    pub repetitions: usize,
    /// Each figure by name (`throughputTokPerSec`, `ttftP50Ms`, `totalP95Ms`, `outputTokPerSec`, `errorRate`, …); a
    /// figure no repetition
    /// could measure is absent.
    pub figures: BTreeMap<String, RepeatedFigure>,
    /// Kruskal–Wallis over the repetitions' successful requests, for `ttft` and `total`.
    pub agreement: BTreeMap<String, KruskalWallis>,
    /// Warnings and how the figures were made, in sentences.
    pub notes: Vec<String>,
}

/// One repetition as the report reads it: its headline figures by name and its successful requests' TTFT and
/// total times (for the agreement test).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Repetition {
    /// `throughputTokPerSec` (the run's output throughput over its measured span), `ttftP50Ms`, `totalP95Ms`,
    /// `outputTokPerSec` (one request's speed: Σ output tokens / Σ total time of the successful requests),
    /// `errorRate`, `goodFraction`, …; `None` when not measurable.
    pub figures: Vec<(&'static str, Option<f64>)>,
    /// TTFT of each successful request, ms.
    pub ttft: Vec<f64>,
    /// Total time of each successful request, ms.
    pub total: Vec<f64>,
}

impl Repetition {
    /// A repetition from its requests; `good_fraction` is its share of good requests when it had objectives.
    pub fn of_records(records: &[IterationRecord], good_fraction: Option<f64>) -> Self {
        let summary = summarize(records);
        let p = |v: Option<crate::stats::Percentiles>, f: fn(crate::stats::Percentiles) -> f64| v.map(f);
        let figures = vec![
            ("ttftP50Ms", p(summary.ttft, |p| p.p50)),
            ("ttftP95Ms", p(summary.ttft, |p| p.p95)),
            ("totalP50Ms", p(summary.total, |p| p.p50)),
            ("totalP95Ms", p(summary.total, |p| p.p95)),
            ("tpotP50Ms", p(summary.tpot, |p| p.p50)),
            ("itlP50Ms", p(summary.itl, |p| p.p50)),
            ("throughputTokPerSec", summary.output_tok_per_sec),
            ("outputTokPerSec", summary.tok_per_sec),
            ("errorRate", Some(summary.error_rate)),
            ("goodFraction", good_fraction),
        ];
        Self {
            figures,
            ttft: successful_values(records, |r| r.ttft_ms),
            total: successful_values(records, |r| Some(r.total_ms)),
        }
    }

    /// A repetition from its report snapshot (the CLI's `bench --repeat`).
    pub fn of_snapshot(snapshot: &crate::runs::report::ReportSnapshot) -> Self {
        Self::of_records(&snapshot.results, snapshot.stats.goodput.as_ref().map(|g| g.good_fraction))
    }
}

/// The figures in the order pages and exports list them: latency first, then speed, then failures.
const FIGURE_ORDER: [&str; 10] = [
    "throughputTokPerSec",
    "ttftP50Ms",
    "ttftP95Ms",
    "totalP50Ms",
    "totalP95Ms",
    "tpotP50Ms",
    "itlP50Ms",
    "outputTokPerSec",
    "errorRate",
    "goodFraction",
];

/// Where `name` stands in [`FIGURE_ORDER`] (unknown names last).
fn figure_rank(name: &str) -> usize {
    FIGURE_ORDER.iter().position(|f| *f == name).unwrap_or(FIGURE_ORDER.len())
}

/// A figure's name in words, for pages and exports: `ttftP95Ms` → `TTFT p95`.
pub fn figure_label(name: &str) -> &'static str {
    match name {
        "ttftP50Ms" => "TTFT p50",
        "ttftP95Ms" => "TTFT p95",
        "totalP50Ms" => "Total p50",
        "totalP95Ms" => "Total p95",
        "tpotP50Ms" => "TPOT p50",
        "itlP50Ms" => "ITL p50",
        "throughputTokPerSec" => "Output throughput",
        "outputTokPerSec" => "One request's output speed",
        "errorRate" => "Error rate",
        "goodFraction" => "Good requests",
        _ => "other",
    }
}

/// A figure's value in its unit: `412 ms`, `38.2 tok/s`, `1.5 %`.
pub fn figure_value(name: &str, value: f64) -> String {
    if name.ends_with("Ms") {
        crate::report::ms(value)
    } else if name.ends_with("TokPerSec") {
        format!("{value:.1} tok/s")
    } else {
        format!("{:.1} %", value * 100.0)
    }
}

/// Summarises `runs` (one per repetition, in order).
#[cfg(feature = "ssr")]
pub fn repeated_report(runs: &[Repetition]) -> RepeatedReport {
    let mut values: BTreeMap<&'static str, Vec<f64>> = BTreeMap::new();
    for run in runs {
        for (name, value) in &run.figures {
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
             independent. Output throughput is the run's: output tokens of successful requests over its measured span \
             (first send to last end); one request's output speed is Σ output tokens / Σ total time of the successful \
             requests, how fast one answer arrives.",
            runs.len()
        ),
        "Agreement: a Kruskal–Wallis test on the successful requests' TTFT and total time asks whether every \
         repetition drew from one distribution; p < 0.01 is reported as a disagreement beyond noise."
            .to_string(),
    ];
    let ttft: Vec<Vec<f64>> = runs.iter().map(|r| r.ttft.clone()).collect();
    let total: Vec<Vec<f64>> = runs.iter().map(|r| r.total.clone()).collect();
    for (key, label, groups) in [("ttft", "TTFT", ttft), ("total", "total time", total)] {
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

/// One figure of two repeated runs compared over their repetitions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RepeatedDelta {
    /// The figure's name (`ttftP95Ms`, …).
    pub figure: String,
    /// Over the first run's repetitions (the baseline).
    pub a: RepeatedFigure,
    /// Over the second's.
    pub b: RepeatedFigure,
    /// Mean of b − mean of a.
    pub difference: f64,
    /// That difference / mean of a; `None` when a's mean is 0.
    pub relative: Option<f64>,
    /// Welch's 95 % interval of the difference; `None` with fewer than 2 repetitions on a side or no spread.
    pub ci_low: Option<f64>,
    /// Its upper end.
    pub ci_high: Option<f64>,
    /// Welch's two-sided p-value over the repetitions' values.
    pub p_value: Option<f64>,
    /// p < [`crate::stats::ALPHA`].
    pub significant: bool,
}

/// Two repeated runs compared by their repetitions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RepeatedComparison {
    /// Each figure both measured, in the reports' order.
    pub deltas: Vec<RepeatedDelta>,
    /// How the comparison was made, in sentences.
    pub notes: Vec<String>,
}

/// Compares `b` against `a` figure by figure: Welch's t-test over the repetitions' own values (each repetition
/// one observation), never over the pooled requests.
#[cfg(feature = "ssr")]
pub fn compare_repeated(a: &RepeatedReport, b: &RepeatedReport) -> RepeatedComparison {
    let mut deltas: Vec<RepeatedDelta> = a
        .figures
        .iter()
        .filter_map(|(name, fa)| {
            let fb = b.figures.get(name)?;
            let test = crate::stats::compare::welch_t_test(&fb.values, &fa.values);
            let difference = fb.mean - fa.mean;
            Some(RepeatedDelta {
                figure: name.clone(),
                a: fa.clone(),
                b: fb.clone(),
                difference,
                relative: (fa.mean != 0.0).then(|| difference / fa.mean.abs()),
                ci_low: test.map(|t| t.ci95_low),
                ci_high: test.map(|t| t.ci95_high),
                p_value: test.map(|t| t.p_value),
                significant: test.is_some_and(|t| t.p_value < crate::stats::ALPHA),
            })
        })
        .collect();
    deltas.sort_by_key(|d| figure_rank(&d.figure));
    let notes = vec![
        format!(
            "Each figure is compared over the repetitions: {} of the first, {} of the second, each repetition one \
             observation, with Welch's t-test (unequal variances, two-sided) and its 95 % interval of the difference; \
             p < {} is called a difference.",
            a.repetitions,
            b.repetitions,
            crate::stats::ALPHA
        ),
        "The pooled requests are not compared: requests of one run share its conditions (the endpoint's load, its \
         cache, the network), so pooling them would count one run's luck many times and find differences that \
         another pair of runs would not repeat."
            .to_string(),
    ];
    RepeatedComparison { deltas, notes }
}

impl RepeatedReport {
    /// One row per figure, as pages and exports show them: name, mean, 95 % interval, run-to-run CV, and each
    /// repetition's value.
    pub fn rows(&self) -> Vec<[String; 5]> {
        let mut figures: Vec<(&String, &RepeatedFigure)> = self.figures.iter().collect();
        figures.sort_by_key(|(name, _)| figure_rank(name));
        figures
            .into_iter()
            .map(|(name, f)| {
                let interval = match (f.ci_low, f.ci_high) {
                    (Some(low), Some(high)) => format!("{} – {}", figure_value(name, low), figure_value(name, high)),
                    _ => "—".to_string(),
                };
                let each: Vec<String> = f.values.iter().map(|v| figure_value(name, *v)).collect();
                [
                    figure_label(name).to_string(),
                    figure_value(name, f.mean),
                    interval,
                    f.cv.map_or_else(|| "—".to_string(), |cv| format!("{:.1} %", cv * 100.0)),
                    each.join(" · "),
                ]
            })
            .collect()
    }

    /// Whether the repetitions agree, in a sentence: the Kruskal–Wallis p-values, and which figures disagree.
    pub fn agreement_text(&self) -> String {
        let tests: Vec<String> = self
            .agreement
            .iter()
            .map(|(key, t)| {
                format!(
                    "{} p = {}",
                    if key == "ttft" { "TTFT" } else { "total time" },
                    crate::report::p_value(t.p_value)
                )
            })
            .collect();
        if tests.is_empty() {
            return "Too few successful requests to test whether the repetitions agree.".to_string();
        }
        format!(
            "{} (Kruskal–Wallis over the repetitions' requests: {}).",
            if self.disagrees() {
                "The repetitions disagree beyond noise"
            } else {
                "The repetitions agree within noise"
            },
            tests.join(", ")
        )
    }

    /// Some repetitions disagree beyond noise.
    pub fn disagrees(&self) -> bool {
        self.agreement.values().any(|t| t.p_value < crate::stats::repeated::DISAGREEMENT_P)
    }
}

impl RepeatedDelta {
    /// The row pages and exports show: figure, baseline mean, this mean, difference (with its interval and
    /// relative size), p-value, verdict.
    pub fn row(&self) -> [String; 6] {
        let name = self.figure.as_str();
        let signed = |v: f64| {
            let text = figure_value(name, v.abs());
            if v < 0.0 {
                format!("−{text}")
            } else {
                format!("+{text}")
            }
        };
        let interval = match (self.ci_low, self.ci_high) {
            (Some(low), Some(high)) => format!(" (95 % CI {} to {})", signed(low), signed(high)),
            _ => String::new(),
        };
        let relative = self.relative.map_or_else(String::new, |r| format!(", {:+.1} %", r * 100.0));
        [
            figure_label(name).to_string(),
            figure_value(name, self.a.mean),
            figure_value(name, self.b.mean),
            format!("{}{relative}{interval}", signed(self.difference)),
            self.p_value.map_or_else(|| "—".to_string(), crate::report::p_value),
            if self.significant { "differs" } else { "no difference shown" }.to_string(),
        ]
    }
}

#[cfg(all(test, feature = "ssr"))]
mod tests {
    use super::*;

    fn figure(values: &[f64]) -> RepeatedFigure {
        crate::stats::repeated::repeated_figure(values).unwrap()
    }

    fn report(ttft: &[f64], errors: &[f64]) -> RepeatedReport {
        let figures = [("errorRate", errors), ("ttftP50Ms", ttft)];
        RepeatedReport {
            repetitions: ttft.len(),
            figures: figures.iter().map(|(name, v)| ((*name).to_string(), figure(v))).collect(),
            agreement: BTreeMap::new(),
            notes: vec![],
        }
    }

    /// Welch's test itself is checked against scipy in `stats::compare`; here, that the repetitions' values are
    /// what it is given, b against a, and how the rows read.
    #[test]
    fn two_repeated_runs_compare_by_their_repetitions_latency_first() {
        let (a, b) = (report(&[10.2, 10.8, 10.5], &[0.0, 0.0, 0.0]), report(&[14.1, 15.0, 14.6], &[0.0, 0.0, 0.0]));
        let compared = compare_repeated(&a, &b);
        assert_eq!(compared.deltas.iter().map(|d| d.figure.as_str()).collect::<Vec<_>>(), ["ttftP50Ms", "errorRate"]);
        let ttft = &compared.deltas[0];
        assert!((ttft.difference - 4.066_666_666_666_666).abs() < 1e-9, "{ttft:?}");
        assert!(ttft.significant && ttft.p_value.unwrap() < 0.001, "{ttft:?}");
        assert_eq!(ttft.row()[5], "differs");
        assert!(ttft.row()[3].starts_with("+4.1 ms, +38.7 % (95 % CI +"), "{:?}", ttft.row());
        let errors = &compared.deltas[1];
        assert_eq!((errors.p_value, errors.significant), (None, false), "no spread on either side: no test");
        assert_eq!(a.rows()[0][0], "TTFT p50", "latency first");
        assert_eq!(a.rows()[0][4], "10.2 ms · 10.8 ms · 10.5 ms");
    }
}
