//! A level's requests judged against the objectives, by the same rules as a run's goodput (a percentile
//! objective over the successful requests, ITL pooled over every gap; a per-request objective met by every
//! measured request, failures never meeting one) plus the error-rate limit. The judgment works on borrowed
//! figures so the bootstrap can re-judge thousands of resamples without copying a record.

use std::collections::BTreeMap;

use crate::model::{IterationRecord, LogHistogram, Slo, SloMetric, SloScope};
use crate::stats::percentile;

/// What a level must do to pass.
#[derive(Debug, Clone, PartialEq)]
pub struct Criteria {
    /// Every one must hold.
    pub slos: Vec<Slo>,
    /// A level whose share of failed requests is above this fails.
    pub max_error_rate: f64,
}

/// One measured request, as the judgment reads it.
#[derive(Debug, Clone, Copy)]
pub struct RequestFigures<'a> {
    ok: bool,
    ttft: Option<f64>,
    tpot: Option<f64>,
    total: f64,
    max_itl: Option<f64>,
    itl_gaps: Option<&'a LogHistogram>,
    record: &'a IterationRecord,
}

impl<'a> RequestFigures<'a> {
    /// The measured requests of `records` (warm-ups left out).
    pub fn measured(records: &'a [IterationRecord]) -> Vec<Self> {
        records
            .iter()
            .filter(|r| !r.warmup)
            .map(|r| Self {
                ok: r.error.is_none(),
                ttft: r.ttft_ms,
                tpot: r.tpot_ms,
                total: r.total_ms,
                max_itl: r.max_itl_ms,
                itl_gaps: r.itl_gaps.as_ref(),
                record: r,
            })
            .collect()
    }

    fn value(&self, metric: SloMetric) -> Option<f64> {
        match metric {
            SloMetric::Ttft => self.ttft,
            SloMetric::Tpot => self.tpot,
            SloMetric::Itl => self.max_itl,
            SloMetric::Total => Some(self.total),
        }
    }
}

/// A level's verdict and the figures behind it.
#[derive(Debug, Clone, PartialEq)]
pub struct Judgment {
    /// Every objective held and the error rate is within its limit.
    pub passed: bool,
    /// Why not, one sentence each.
    pub reasons: Vec<String>,
    /// Each objective's figure, named after it (see [`figure_name`]).
    pub judged: BTreeMap<String, Option<f64>>,
}

/// The name of the figure an objective is judged on: `ttft_p95_ms` for a percentile, `ttft_ms_met` (the share of
/// requests meeting it) for a per-request objective.
pub fn figure_name(slo: &Slo) -> String {
    match slo.scope {
        SloScope::Percentile(p) => format!("{}_p{p}_ms", slo.metric.as_str()),
        SloScope::PerRequest => format!("{}_ms_met", slo.metric.as_str()),
    }
}

/// The figure `slo` is judged on over `sample`.
fn figure(slo: &Slo, sample: &[&RequestFigures<'_>]) -> Option<f64> {
    match slo.scope {
        SloScope::Percentile(p) => {
            let ok = sample.iter().filter(|r| r.ok);
            if slo.metric == SloMetric::Itl {
                let mut pooled = LogHistogram::default();
                ok.filter_map(|r| r.itl_gaps).for_each(|h| pooled.merge(h));
                return pooled.percentile(f64::from(p));
            }
            let mut values: Vec<f64> = ok.filter_map(|r| r.value(slo.metric)).filter(|v| v.is_finite()).collect();
            values.sort_by(f64::total_cmp);
            percentile(&values, f64::from(p))
        }
        SloScope::PerRequest => {
            let met = sample.iter().filter(|r| r.ok && r.value(slo.metric).is_some_and(|v| v <= slo.bound_ms)).count();
            (!sample.is_empty()).then(|| met as f64 / sample.len() as f64)
        }
    }
}

/// Whether an objective holds given its figure.
fn holds(slo: &Slo, figure: Option<f64>) -> bool {
    match slo.scope {
        SloScope::Percentile(_) => figure.is_some_and(|v| v <= slo.bound_ms),
        SloScope::PerRequest => figure.is_some_and(|share| share >= 1.0),
    }
}

fn error_rate(sample: &[&RequestFigures<'_>]) -> f64 {
    if sample.is_empty() {
        return 0.0;
    }
    sample.iter().filter(|r| !r.ok).count() as f64 / sample.len() as f64
}

/// Whether `sample` passes (the bootstrap's question; no words, no allocation beyond the percentile's).
pub fn passes(criteria: &Criteria, sample: &[&RequestFigures<'_>]) -> bool {
    !sample.is_empty()
        && error_rate(sample) <= criteria.max_error_rate
        && criteria.slos.iter().all(|slo| holds(slo, figure(slo, sample)))
}

/// The verdict on `sample`, with its reasons and figures.
pub fn judge(criteria: &Criteria, sample: &[&RequestFigures<'_>]) -> Judgment {
    let mut reasons = Vec::new();
    if sample.is_empty() {
        reasons.push("no request was measured".to_string());
    }
    let errors = error_rate(sample);
    if errors > criteria.max_error_rate {
        reasons.push(format!(
            "{:.1} % of requests failed, above the {:.1} % allowed",
            errors * 100.0,
            criteria.max_error_rate * 100.0
        ));
    }
    let mut judged = BTreeMap::new();
    for slo in &criteria.slos {
        let value = figure(slo, sample);
        if !holds(slo, value) {
            reasons.push(match (slo.scope, value) {
                (_, None) => format!("{} could not be measured", slo.spelled()),
                (SloScope::Percentile(_), Some(v)) => {
                    format!("{} missed: {} was {v:.1} ms", slo.spelled(), figure_name(slo))
                }
                (SloScope::PerRequest, Some(share)) => {
                    format!("{} missed: met by {:.1} % of requests, not all", slo.spelled(), share * 100.0)
                }
            });
        }
        judged.insert(figure_name(slo), value);
    }
    Judgment { passed: reasons.is_empty(), reasons, judged }
}

/// The records behind a sample (for figures that are not judged, such as throughput).
pub fn records<'a>(sample: &[&RequestFigures<'a>]) -> Vec<&'a IterationRecord> {
    sample.iter().map(|r| r.record).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(ttft: f64, total: f64, error: bool) -> IterationRecord {
        IterationRecord {
            ttft_ms: Some(ttft),
            total_ms: total,
            tokens_out: Some(10),
            error: error.then(|| "http_500: boom".into()),
            ..IterationRecord::blank()
        }
    }

    fn criteria(slos: &[&str], max_error_rate: f64) -> Criteria {
        Criteria { slos: slos.iter().map(|s| Slo::parse(s).unwrap()).collect(), max_error_rate }
    }

    /// The judgment agrees with the run report's goodput on the same requests, objective by objective.
    #[test]
    fn agrees_with_the_reports_goodput() {
        let mut records: Vec<IterationRecord> =
            (0..40).map(|i| record(100.0 + f64::from(i) * 10.0, 800.0 + f64::from(i), i == 7)).collect();
        records.push(IterationRecord { warmup: true, ..record(9_999.0, 9_999.0, false) });
        let slos = ["ttft_p95_ms<=460", "ttft_p50_ms<=400", "total_ms<=830", "total_p90_ms<=900"];
        let criteria = criteria(&slos, 1.0);
        let figures = RequestFigures::measured(&records);
        let sample: Vec<&RequestFigures<'_>> = figures.iter().collect();
        let judgment = judge(&criteria, &sample);
        let goodput = crate::stats::goodput(&records, &criteria.slos, Some(1_000.0)).unwrap();
        for (slo, attained) in criteria.slos.iter().zip(&goodput.objectives) {
            let value = judgment.judged[&figure_name(slo)];
            assert_eq!(holds(slo, value), attained.met, "{}", slo.spelled());
            match slo.scope {
                SloScope::Percentile(_) => assert_eq!(value, attained.measured_ms),
                SloScope::PerRequest => assert_eq!(value, attained.met_fraction),
            }
        }
        assert!(!judgment.passed);
        assert_eq!(judgment.passed, passes(&criteria, &sample));
        assert!(judgment.reasons.iter().any(|r| r == "ttft_p95_ms<=460 missed: ttft_p95_ms was 471.0 ms"));
        assert!(judgment.reasons.iter().any(|r| r.contains("total_ms<=830 missed: met by 75.0 % of requests")));
    }

    #[test]
    fn the_error_rate_fails_a_level_and_says_by_how_much() {
        let records: Vec<IterationRecord> = (0..10).map(|i| record(10.0, 20.0, i < 2)).collect();
        let figures = RequestFigures::measured(&records);
        let sample: Vec<&RequestFigures<'_>> = figures.iter().collect();
        let strict = judge(&criteria(&["ttft_p95_ms<=50"], 0.1), &sample);
        assert_eq!(strict.reasons, ["20.0 % of requests failed, above the 10.0 % allowed"]);
        assert!(judge(&criteria(&["ttft_p95_ms<=50"], 0.2), &sample).passed);
        assert!(!passes(&criteria(&["ttft_p95_ms<=50"], 0.2), &[]), "nothing measured never passes");
        assert_eq!(figure_name(&Slo::parse("itl_ms<=5").unwrap()), "itl_ms_met");
    }
}
