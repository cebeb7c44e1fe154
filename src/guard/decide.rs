//! Judging a scheduled run against its baseline: the five-figure summary of each, Welch's t-test of their total
//! times, and every threshold's verdict. A latency threshold (p95, mean, tok/s: figures made of total times)
//! breaches only when crossed **and**, unless the schedule says otherwise, Welch's p-value is below alpha, so
//! noise alone pages no one. Cost and error rate breach when crossed.

use crate::model::{
    Baseline, Breach, Decision, GuardSummary, IterationRecord, Op, ScheduleInput, Threshold, ThresholdCheck,
};
use crate::stats::compare::welch_t_test;
use crate::stats::{successful_values, summarize};

/// The successful measured total times of a run (ms, ascending) and its summary.
pub fn observe(records: &[IterationRecord]) -> (Vec<f64>, GuardSummary) {
    let totals = successful_values(records, |r| Some(r.total_ms));
    let run = summarize(records);
    let summary = GuardSummary {
        p95_ms: run.total.map(|p| p.p95),
        mean_ms: (!totals.is_empty()).then(|| totals.iter().sum::<f64>() / totals.len() as f64),
        tok_s: run.tok_per_sec,
        cost_usd: run.total_cost_usd,
        error_rate: run.error_rate,
    };
    (totals, summary)
}

/// Every threshold of `schedule` checked: `observed` (total times and summary) against `baseline`.
pub fn decide(schedule: &ScheduleInput, baseline: &Baseline, observed: (&[f64], &GuardSummary)) -> Decision {
    let (observed_totals, observed_summary) = observed;
    let p_value = welch_t_test(observed_totals, &baseline.total_ms).map(|w| w.p_value);
    let mut checks = Vec::with_capacity(schedule.thresholds.len());
    let mut breaches = Vec::new();
    for threshold in &schedule.thresholds {
        let check = check(threshold, &baseline.summary, observed_summary, p_value, schedule);
        if check.breached {
            breaches.push(Breach {
                metric: threshold.metric,
                op: threshold.op,
                threshold: threshold.value,
                delta: check.delta.unwrap_or(0.0),
                pct_change: check.pct_change,
                p_value,
                severity: threshold.severity,
                baseline: check.baseline.unwrap_or(0.0),
                observed: check.observed.unwrap_or(0.0),
            });
        }
        checks.push(check);
    }
    Decision { checks, breaches, p_value, n: (baseline.total_ms.len(), observed_totals.len()) }
}

fn check(
    threshold: &Threshold,
    baseline: &GuardSummary,
    observed: &GuardSummary,
    p_value: Option<f64>,
    schedule: &ScheduleInput,
) -> ThresholdCheck {
    let (b, o) = (threshold.metric.of(baseline), threshold.metric.of(observed));
    let verdict = |crossed: bool, breached: bool, reason: String| ThresholdCheck {
        threshold: *threshold,
        baseline: b,
        observed: o,
        delta: b.zip(o).map(|(b, o)| o - b),
        pct_change: b.zip(o).filter(|(b, _)| *b != 0.0).map(|(b, o)| (o - b) / b * 100.0),
        crossed,
        breached,
        reason,
    };
    let (Some(b), Some(o)) = (b, o) else {
        let missing = if b.is_none() { "the baseline" } else { "this run" };
        return verdict(false, false, format!("not measurable: {missing} has no {}", threshold.metric.as_str()));
    };
    let pct = (b != 0.0).then(|| (o - b) / b * 100.0);
    let crossed = match threshold.op {
        Op::PctIncrease => pct.is_some_and(|p| p >= threshold.value),
        Op::PctDecrease => pct.is_some_and(|p| -p >= threshold.value),
        Op::AbsIncrease => o - b >= threshold.value,
    };
    let change = match (threshold.op, pct) {
        (Op::AbsIncrease, _) => format!("{:+.4} (limit +{})", o - b, threshold.value),
        (_, Some(p)) => {
            format!("{p:+.1}% (limit {}{}%)", if threshold.op == Op::PctIncrease { "+" } else { "−" }, threshold.value)
        }
        (_, None) => "no percentage of a zero baseline".to_string(),
    };
    if !crossed {
        return verdict(false, false, format!("within the threshold: {change}"));
    }
    if !(threshold.metric.is_latency() && schedule.require_significance) {
        return verdict(true, true, format!("crossed: {change}"));
    }
    match p_value {
        Some(p) if p < schedule.alpha => verdict(
            true,
            true,
            format!(
                "crossed and significant: {change}, Welch p = {} < α = {}",
                crate::report::p_value(p),
                schedule.alpha
            ),
        ),
        Some(p) => verdict(
            true,
            false,
            format!(
                "crossed but not significant: {change}, Welch p = {} ≥ α = {} (could be noise)",
                crate::report::p_value(p),
                schedule.alpha
            ),
        ),
        None => verdict(
            true,
            false,
            "crossed, but Welch's test needs at least 2 successful requests on each side with some spread: not alerted"
                .to_string(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{BaselineId, BenchmarkSetId, Cadence, ConnectorId, Metric, RunId, Severity};
    use uuid::Uuid;

    fn schedule(thresholds: Vec<Threshold>) -> ScheduleInput {
        ScheduleInput {
            name: "s".into(),
            set_id: BenchmarkSetId(Uuid::nil()),
            connector_id: ConnectorId(Uuid::nil()),
            enabled: true,
            cadence: Cadence::Hourly,
            notify: Default::default(),
            thresholds,
            alpha: 0.05,
            require_significance: true,
            workload_id: None,
            policy: Default::default(),
        }
    }

    fn summary(p95: f64, mean: f64, error_rate: f64) -> GuardSummary {
        GuardSummary { p95_ms: Some(p95), mean_ms: Some(mean), tok_s: Some(50.0), cost_usd: None, error_rate }
    }

    fn baseline(total_ms: Vec<f64>, summary: GuardSummary) -> Baseline {
        Baseline {
            id: BaselineId(Uuid::nil()),
            set_id: BenchmarkSetId(Uuid::nil()),
            connector_id: ConnectorId(Uuid::nil()),
            run_id: RunId(Uuid::nil()),
            total_ms,
            summary,
            current: true,
            pinned_at_ms: 0,
        }
    }

    fn rule(metric: Metric, op: Op, value: f64) -> Threshold {
        Threshold { metric, op, value, severity: Severity::Critical }
    }

    // scipy 1.17.1: ttest_ind([210, 220, 205, 230, 215], [100, 104, 98, 101, 99, 103, 97, 102],
    // equal_var=False).pvalue = 6.0905791809414e-06
    const SLOW: [f64; 5] = [210.0, 220.0, 205.0, 230.0, 215.0];
    const FAST: [f64; 8] = [100.0, 104.0, 98.0, 101.0, 99.0, 103.0, 97.0, 102.0];

    #[test]
    fn a_significant_slowdown_breaches_with_its_p_value() {
        let base = baseline(FAST.to_vec(), summary(104.0, 100.5, 0.0));
        let s =
            schedule(vec![rule(Metric::P95Ms, Op::PctIncrease, 20.0), rule(Metric::ErrorRate, Op::AbsIncrease, 0.1)]);
        let d = decide(&s, &base, (&SLOW, &summary(228.0, 216.0, 0.0)));
        assert_eq!(d.n, (8, 5));
        assert!((d.p_value.unwrap() - 6.0905791809414e-06).abs() < 1e-9, "{:?}", d.p_value);
        assert_eq!(d.breaches.len(), 1);
        let b = &d.breaches[0];
        assert_eq!(
            (b.metric, b.op, b.threshold, b.delta, b.severity),
            (Metric::P95Ms, Op::PctIncrease, 20.0, 124.0, Severity::Critical)
        );
        assert!((b.pct_change.unwrap() - 124.0 / 104.0 * 100.0).abs() < 1e-9);
        assert_eq!(b.p_value, d.p_value);
        assert!(d.checks[0].reason.starts_with("crossed and significant"), "{}", d.checks[0].reason);
        assert!(d.checks[1].reason.starts_with("within the threshold"), "{}", d.checks[1].reason);
    }

    #[test]
    fn a_crossing_that_could_be_noise_is_recorded_but_does_not_breach() {
        // scipy: ttest_ind([90, 100, 180, 200], [100, 150, 95, 110, 120], equal_var=False).pvalue = 0.4068289580096446
        let base = baseline(vec![100.0, 150.0, 95.0, 110.0, 120.0], summary(144.0, 115.0, 0.0));
        let s = schedule(vec![rule(Metric::P95Ms, Op::PctIncrease, 20.0)]);
        let d = decide(&s, &base, (&[90.0, 100.0, 180.0, 200.0], &summary(197.0, 142.5, 0.0)));
        assert!(d.breaches.is_empty());
        assert!((d.p_value.unwrap() - 0.4068289580096446).abs() < 1e-9, "{:?}", d.p_value);
        assert!(d.checks[0].crossed && !d.checks[0].breached);
        assert!(d.checks[0].reason.contains("not significant"), "{}", d.checks[0].reason);
        let without_gate = ScheduleInput { require_significance: false, ..s };
        assert_eq!(
            decide(&without_gate, &base, (&[90.0, 100.0, 180.0, 200.0], &summary(197.0, 142.5, 0.0))).breaches.len(),
            1
        );
    }

    #[test]
    fn error_rate_and_decreases_breach_without_significance_and_missing_figures_never_do() {
        let base = baseline(FAST.to_vec(), GuardSummary { tok_s: Some(100.0), ..summary(104.0, 100.5, 0.0) });
        let s = schedule(vec![
            rule(Metric::ErrorRate, Op::AbsIncrease, 0.1),
            rule(Metric::TokS, Op::PctDecrease, 30.0),
            rule(Metric::CostUsd, Op::PctIncrease, 10.0),
        ]);
        let observed = GuardSummary { tok_s: Some(60.0), ..summary(104.0, 100.5, 0.25) };
        let d = decide(&s, &base, (&FAST, &observed));
        let breached: Vec<Metric> = d.breaches.iter().map(|b| b.metric).collect();
        assert_eq!(breached, [Metric::ErrorRate], "tok/s fell 40 % but the totals are identical: not significant");
        assert!(d.checks[2].reason.contains("not measurable"), "{}", d.checks[2].reason);
    }

    #[test]
    fn observing_a_run_uses_successful_measured_requests() {
        use crate::model::fixtures::iteration_record;
        let mut records: Vec<IterationRecord> =
            (0..5).map(|i| iteration_record(i, Some(10.0), 100.0 + i as f64 * 10.0, false)).collect();
        records.push(iteration_record(5, None, 5_000.0, true));
        let (totals, s) = observe(&records);
        assert_eq!(totals, [100.0, 110.0, 120.0, 130.0, 140.0]);
        assert_eq!((s.mean_ms, s.p95_ms), (Some(120.0), Some(138.0)));
        assert!((s.error_rate - 1.0 / 6.0).abs() < 1e-12);
    }
}
