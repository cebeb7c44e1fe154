//! A run judged against its objectives: how many requests were good (succeeded and met every per-request
//! objective), the rates of good requests and good output tokens over the run's measured span beside the raw ones, and
//! whether each objective held, by how much.

use serde::{Deserialize, Serialize};

use super::percentile::percentile;
use super::summary::successful_values;
use crate::model::{IterationRecord, LogHistogram, Slo, SloMetric, SloScope};

/// One objective's outcome.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SloAttainment {
    /// The objective, as written (`ttft_p95_ms<=500`).
    pub slo: Slo,
    /// Whether it held: a percentile at most its bound; a per-request objective met by every measured request.
    pub met: bool,
    /// A percentile objective: the run's value, ms (`None` when not measurable).
    pub measured_ms: Option<f64>,
    /// A percentile objective: bound − value, ms (positive: headroom; negative: by how much it was missed).
    pub margin_ms: Option<f64>,
    /// A per-request objective: the share of measured requests that met it (failures never do).
    pub met_fraction: Option<f64>,
}

/// Goodput and attainment of a run's objectives.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Goodput {
    /// Each objective, in the plan's order.
    pub objectives: Vec<SloAttainment>,
    /// Measured requests (warm-ups excluded).
    pub measured: u64,
    /// Of those, good: succeeded and met every per-request objective.
    pub good: u64,
    /// good / measured.
    pub good_fraction: f64,
    /// The span the rates are over, s: the run's measured span (first measured send to last end), as its
    /// throughput; `None` when it has none.
    pub window_s: Option<f64>,
    /// Measured requests per second of the span.
    pub requests_per_sec: Option<f64>,
    /// Good requests per second of the span.
    pub good_requests_per_sec: Option<f64>,
    /// Output tokens of successful requests per second of the span.
    pub output_tokens_per_sec: Option<f64>,
    /// Output tokens of good requests per second of the span.
    pub good_output_tokens_per_sec: Option<f64>,
}

/// Whether `record` is good under `slos`: measured, succeeded, and met every per-request objective.
pub fn is_good(record: &IterationRecord, slos: &[Slo]) -> bool {
    record.error.is_none() && slos.iter().filter(|s| s.scope == SloScope::PerRequest).all(|s| s.met_by(record))
}

/// The `p`-th percentile of `metric` over the successful measured requests (ITL pooled over every gap).
fn run_percentile(records: &[IterationRecord], metric: SloMetric, p: f64) -> Option<f64> {
    let pick: fn(&IterationRecord) -> Option<f64> = match metric {
        SloMetric::Ttft => |r| r.ttft_ms,
        SloMetric::Tpot => |r| r.tpot_ms,
        SloMetric::Total => |r| Some(r.total_ms),
        SloMetric::Itl => {
            let mut all = LogHistogram::default();
            records
                .iter()
                .filter(|r| !r.warmup && r.error.is_none())
                .filter_map(|r| r.itl_gaps.as_ref())
                .for_each(|h| all.merge(h));
            return all.percentile(p);
        }
    };
    percentile(&successful_values(records, pick), p)
}

/// The run judged against `slos`, its rates over `window_ms`; `None` without objectives.
pub fn goodput(records: &[IterationRecord], slos: &[Slo], window_ms: Option<f64>) -> Option<Goodput> {
    if slos.is_empty() {
        return None;
    }
    let measured: Vec<&IterationRecord> = records.iter().filter(|r| !r.warmup).collect();
    let good: Vec<&IterationRecord> = measured.iter().copied().filter(|r| is_good(r, slos)).collect();
    let share = |n: usize| if measured.is_empty() { 0.0 } else { n as f64 / measured.len() as f64 };
    let objectives = slos
        .iter()
        .map(|slo| match slo.scope {
            SloScope::PerRequest => {
                let met = measured.iter().filter(|r| r.error.is_none() && slo.met_by(r)).count();
                SloAttainment {
                    slo: *slo,
                    met: met == measured.len() && !measured.is_empty(),
                    measured_ms: None,
                    margin_ms: None,
                    met_fraction: Some(share(met)),
                }
            }
            SloScope::Percentile(p) => {
                let value = run_percentile(records, slo.metric, f64::from(p));
                SloAttainment {
                    slo: *slo,
                    met: value.is_some_and(|v| v <= slo.bound_ms),
                    measured_ms: value,
                    margin_ms: value.map(|v| slo.bound_ms - v),
                    met_fraction: None,
                }
            }
        })
        .collect();
    let seconds = window_ms.filter(|ms| *ms > 0.0).map(|ms| ms / 1e3);
    let per_second = |n: f64| seconds.map(|s| n / s);
    let tokens = |rs: &[&IterationRecord]| {
        rs.iter().filter(|r| r.error.is_none()).filter_map(|r| r.tokens_out).sum::<u64>() as f64
    };
    Some(Goodput {
        objectives,
        measured: measured.len() as u64,
        good: good.len() as u64,
        good_fraction: share(good.len()),
        window_s: seconds,
        requests_per_sec: per_second(measured.len() as f64),
        good_requests_per_sec: per_second(good.len() as f64),
        output_tokens_per_sec: per_second(tokens(&measured)),
        good_output_tokens_per_sec: per_second(tokens(&good)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(ttft: f64, total: f64, tokens: u64, error: bool) -> IterationRecord {
        IterationRecord {
            ttft_ms: Some(ttft),
            total_ms: total,
            tokens_out: Some(tokens),
            error: error.then(|| "http_500: boom".into()),
            ..IterationRecord::blank()
        }
    }

    /// A fixture counted by hand: 6 measured requests (and a warm-up that meets nothing and is ignored).
    /// ttft ≤ 300 and total ≤ 1000 per request: #1 yes, #2 no (ttft), #3 yes, #4 no (total), #5 failed, #6 yes.
    #[test]
    fn goodput_equals_a_hand_count() {
        let mut records = vec![
            record(120.0, 800.0, 40, false),
            record(450.0, 900.0, 40, false),
            record(300.0, 1000.0, 30, false),
            record(200.0, 1500.0, 50, false),
            record(100.0, 200.0, 0, true),
            record(250.0, 700.0, 20, false),
        ];
        records.push(IterationRecord { warmup: true, ..record(9_000.0, 9_000.0, 10, false) });
        let slos: Vec<Slo> =
            ["ttft_ms<=300", "total_ms<=1000", "ttft_p50_ms<=250"].iter().map(|t| Slo::parse(t).unwrap()).collect();
        let g = goodput(&records, &slos, Some(2_000.0)).unwrap();
        assert_eq!((g.measured, g.good), (6, 3));
        assert!((g.good_fraction - 0.5).abs() < 1e-12);
        assert_eq!(g.good_requests_per_sec, Some(1.5), "3 good in 2 s");
        assert_eq!(g.requests_per_sec, Some(3.0));
        assert_eq!(g.good_output_tokens_per_sec, Some(45.0), "40 + 30 + 20 tokens in 2 s");
        assert_eq!(g.output_tokens_per_sec, Some(90.0), "the failure's tokens do not count");
        assert_eq!(g.objectives[0].met_fraction, Some(4.0 / 6.0), "#1, #3, #4, #6 met TTFT");
        assert!(!g.objectives[0].met);
        // p50 of the 5 successful TTFTs [120, 200, 250, 300, 450] is 250 (numpy linear): met, 0 ms to spare.
        assert_eq!(
            (g.objectives[2].measured_ms, g.objectives[2].met, g.objectives[2].margin_ms),
            (Some(250.0), true, Some(0.0))
        );
        assert!(goodput(&records, &[], Some(1.0)).is_none());
    }

    #[test]
    fn without_per_request_objectives_every_success_is_good_and_a_running_run_has_no_rates() {
        let records = vec![record(1.0, 2.0, 1, false), record(1.0, 2.0, 1, true)];
        let g = goodput(&records, &[Slo::parse("total_p99_ms<=1").unwrap()], None).unwrap();
        assert_eq!(g.good, 1);
        assert_eq!((g.requests_per_sec, g.good_requests_per_sec), (None, None));
        assert!(!g.objectives[0].met);
        assert_eq!(g.objectives[0].margin_ms, Some(-1.0));
    }
}
