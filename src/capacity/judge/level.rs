//! One level's figures: the verdict and what it was judged on, plus the throughput, the load generator's fidelity
//! (open loop: the rate it achieved and how late it sent) and latency percentiles, over the measured requests.

use super::objectives::{judge, records, Criteria, RequestFigures};
use crate::capacity::model::LoadAxis;
use crate::capacity::report::{CapacityLevel, Saturation};
use crate::model::{IterationRecord, RunId};
use crate::stats::{pacing, percentile, percentiles};

/// An open-loop level whose achieved send rate is below this share of its target fails: the load asked for was
/// not the load applied, so its latencies answer a different question.
pub use crate::stats::MIN_ACHIEVED_SHARE;

/// A level whose last quarter of requests took this many times the first quarter's median is over-saturated.
pub const GROWTH_LIMIT: f64 = 2.0;

/// The median total time of the last quarter of successful requests (by send time) over the first quarter's;
/// `None` with fewer than 8.
fn latency_growth(ok: &[&IterationRecord]) -> Option<f64> {
    let mut sent: Vec<(f64, f64)> = ok.iter().filter_map(|r| Some((r.sent_at_ms?, r.total_ms))).collect();
    if sent.len() < 8 {
        return None;
    }
    sent.sort_by(|a, b| a.0.total_cmp(&b.0));
    let quarter = sent.len() / 4;
    let median = |part: &[(f64, f64)]| {
        let mut totals: Vec<f64> = part.iter().map(|p| p.1).collect();
        totals.sort_by(f64::total_cmp);
        percentile(&totals, 50.0)
    };
    let (first, last) = (median(&sent[..quarter])?, median(&sent[sent.len() - quarter..])?);
    (first > 0.0).then(|| last / first)
}

/// What a level's run gave.
#[derive(Debug, Clone)]
pub struct LevelRun {
    /// Every iteration, warm-ups included.
    pub records: Vec<IterationRecord>,
    /// Wall time of the run, s.
    pub wall_s: f64,
    /// The stored run, when there is one.
    pub run_id: Option<RunId>,
    /// The verdict on its figures.
    pub validity: Option<crate::model::RunValidity>,
}

/// The completion window of the measured requests, s: first send → last end; `None` without send times.
fn completion_window(measured: &[&IterationRecord]) -> Option<f64> {
    let first = measured.iter().filter_map(|r| r.sent_at_ms).reduce(f64::min)?;
    let last_end = measured.iter().filter_map(|r| r.sent_at_ms.map(|s| s + r.total_ms)).reduce(f64::max)?;
    Some((last_end - first) / 1e3)
}

/// Judges the level `level` on `axis` and gathers its figures.
pub fn level_figures(axis: LoadAxis, level: f64, criteria: &Criteria, run: &LevelRun) -> CapacityLevel {
    let figures = RequestFigures::measured(&run.records);
    let sample: Vec<&RequestFigures<'_>> = figures.iter().collect();
    let mut judgment = judge(criteria, &sample);
    let measured = records(&sample);
    let ok: Vec<&IterationRecord> = measured.iter().copied().filter(|r| r.error.is_none()).collect();
    let good = measured.iter().filter(|r| crate::stats::is_good(r, &criteria.slos)).count();
    let window = completion_window(&measured);
    let per_second = |n: f64| window.filter(|w| *w > 0.0).map(|w| n / w);
    let tokens: u64 = ok.iter().filter_map(|r| r.tokens_out).sum();
    let mut achieved_rate = None;
    let mut schedule_lag_p95_ms = None;
    let mut saturation = None;
    if axis == LoadAxis::Rate {
        let pacing = pacing(&measured);
        (achieved_rate, schedule_lag_p95_ms) = (pacing.achieved_rate, pacing.lag_p95_ms);
        if let Some(achieved) = achieved_rate.filter(|a| *a < level * MIN_ACHIEVED_SHARE) {
            judgment.passed = false;
            saturation = Some(Saturation::RateMissed);
            judgment.reasons.push(format!(
                "the load generator sent {achieved:.2} req/s, under {:.0} % of the {} req/s asked",
                MIN_ACHIEVED_SHARE * 100.0,
                crate::model::trim_number(level)
            ));
        }
    }
    let count = measured.len() as u64;
    let failed = count - ok.len() as u64;
    let error_rate = if count == 0 { 0.0 } else { failed as f64 / count as f64 };
    let growth = latency_growth(&ok);
    if saturation.is_none() && error_rate > criteria.max_error_rate {
        saturation = Some(Saturation::Errors);
    }
    if saturation.is_none() && growth.is_some_and(|g| g > GROWTH_LIMIT) {
        saturation = Some(Saturation::LatencyGrowing);
    }
    CapacityLevel {
        level,
        passed: judgment.passed,
        reasons: judgment.reasons,
        pass_probability: f64::from(u8::from(judgment.passed)),
        judged: judgment.judged,
        requests: count,
        failed,
        error_rate,
        good_fraction: if count == 0 { 0.0 } else { good as f64 / count as f64 },
        throughput_rps: per_second(count as f64),
        good_rps: per_second(good as f64),
        output_tok_per_sec: per_second(tokens as f64),
        achieved_rate,
        schedule_lag_p95_ms,
        ttft_ms: percentiles(ok.iter().filter_map(|r| r.ttft_ms)),
        total_ms: percentiles(ok.iter().map(|r| r.total_ms)),
        wall_s: run.wall_s,
        latency_growth: growth,
        saturation,
        run_id: run.run_id,
        validity: run.validity.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Slo;

    /// 10 requests sent 100 ms apart, each 250 ms long: sends span 0.9 s (10 req/s achieved), completions 1.15 s.
    #[test]
    fn rates_are_taken_over_the_measured_window_and_a_missed_rate_fails() {
        let records: Vec<IterationRecord> = (0..10)
            .map(|i| IterationRecord {
                sent_at_ms: Some(1_000.0 + f64::from(i) * 100.0),
                total_ms: 250.0,
                ttft_ms: Some(50.0),
                tokens_out: Some(20),
                schedule_lag_ms: f64::from(i),
                ..IterationRecord::blank()
            })
            .collect();
        let run = LevelRun { records, wall_s: 1.5, run_id: None, validity: None };
        let criteria = Criteria { slos: vec![Slo::parse("ttft_p95_ms<=60").unwrap()], max_error_rate: 0.0 };
        let at_ten = level_figures(LoadAxis::Rate, 10.0, &criteria, &run);
        assert!(at_ten.passed, "{:?}", at_ten.reasons);
        assert!((at_ten.achieved_rate.unwrap() - 10.0).abs() < 1e-9);
        assert!((at_ten.throughput_rps.unwrap() - 10.0 / 1.15).abs() < 1e-9);
        assert!((at_ten.output_tok_per_sec.unwrap() - 200.0 / 1.15).abs() < 1e-9);
        assert_eq!(at_ten.judged["ttft_p95_ms"], Some(50.0));
        let at_twenty = level_figures(LoadAxis::Rate, 20.0, &criteria, &run);
        assert!(!at_twenty.passed);
        assert_eq!(at_twenty.saturation, Some(Saturation::RateMissed));
        assert_eq!(at_ten.saturation, None);
        assert_eq!(at_ten.latency_growth, Some(1.0), "every request took 250 ms");
        assert_eq!(at_twenty.reasons, ["the load generator sent 10.00 req/s, under 90 % of the 20 req/s asked"]);
        let closed = level_figures(LoadAxis::Concurrency, 4.0, &criteria, &run);
        assert!(closed.passed && closed.achieved_rate.is_none(), "a closed loop has no rate to achieve");
    }

    /// A queue that never drains: each request slower than the one before.
    #[test]
    fn latency_growing_through_a_level_is_over_saturation() {
        let records: Vec<IterationRecord> = (1..=16)
            .map(|i| IterationRecord {
                sent_at_ms: Some(f64::from(i) * 10.0),
                total_ms: f64::from(i) * 100.0,
                ..IterationRecord::blank()
            })
            .collect();
        let run = LevelRun { records, wall_s: 2.0, run_id: None, validity: None };
        let criteria = Criteria { slos: vec![], max_error_rate: 0.0 };
        let level = level_figures(LoadAxis::Concurrency, 2.0, &criteria, &run);
        // First quarter 100–400 ms (median 250), last 1300–1600 ms (median 1450).
        assert!((level.latency_growth.unwrap() - 1450.0 / 250.0).abs() < 1e-9);
        assert_eq!(level.saturation, Some(Saturation::LatencyGrowing));
    }
}
