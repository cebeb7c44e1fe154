//! Judging a scheduled run against its baseline: the five-figure summary of each, Welch's t-test of their total
//! times, and every threshold's verdict. A latency threshold (p95, mean, tok/s: figures made of total times)
//! breaches only when crossed **and**, unless the schedule says otherwise, Welch's p-value is below alpha, so
//! noise alone pages no one. Cost and error rate breach when crossed. A `change_point` threshold, and one with a
//! window test, read the schedule's history instead (`history_checks`). When several tests with p-values judge one
//! evaluation (Welch's, once for every latency threshold it gates; each change point; each z-score or log-normal
//! window test), a breach needs its Benjamini–Hochberg adjusted p-value to pass α too, and its reason says so.
//! Beside Welch's p-value, the reason says how far the total times moved: the Hodges–Lehmann shift with its
//! 1 − α interval (robust to one slow outlier, where a difference of means is not).

use super::crossing::crossing;
use super::evidence::{streamed_evidence, total_time_evidence, Evidence};
use super::history_checks::{change_point_check, window_check};
use crate::guard::model::{
    Breach, Decision, GuardSummary, Op, Reference, ScheduleInput, StreamedSamples, Threshold, ThresholdCheck,
};
use crate::model::IterationRecord;
use crate::stats::multiple::benjamini_hochberg;
use crate::stats::serial::lag1_autocorrelation;
use crate::stats::{successful_values, summarize};

/// The successful measured total times of a run (ms, ascending) and its summary (with TTFT, TPOT and time to first
/// output when it streamed; the acceptance rate is the server's, added by the tick).
pub fn observe(records: &[IterationRecord]) -> (Vec<f64>, GuardSummary) {
    let totals = successful_values(records, |r| Some(r.total_ms));
    let run = summarize(records);
    let summary = GuardSummary {
        p95_ms: run.total.map(|p| p.p95),
        p50_ms: run.total.map(|p| p.p50),
        mean_ms: (!totals.is_empty()).then(|| totals.iter().sum::<f64>() / totals.len() as f64),
        tok_s: run.tok_per_sec,
        cost_usd: run.total_cost_usd,
        error_rate: run.error_rate,
        ttft_p95_ms: run.ttft.map(|p| p.p95),
        tpot_p95_ms: run.tpot.map(|p| p.p95),
        first_output_p95_ms: run.first_output.map(|p| p.p95),
        acceptance_rate: None,
    };
    (totals, summary)
}

/// A streamed run's per-request TTFT, TPOT and time to first output (successful measured requests, each list
/// ascending); `None` when no request has a time to first output (the run was not streamed).
pub fn streamed_samples(records: &[IterationRecord]) -> Option<StreamedSamples> {
    let samples = StreamedSamples {
        ttft_ms: successful_values(records, |r| r.ttft_ms),
        tpot_ms: successful_values(records, |r| r.tpot_ms),
        first_output_ms: successful_values(records, |r| r.first_output_ms),
    };
    (!samples.first_output_ms.is_empty()).then_some(samples)
}

/// The lag-1 autocorrelation (`stats::serial`) of a run's successful measured total times in send order, each
/// less what its prompt takes in the baseline run (the median of its times there, else the baseline's median):
/// requests of different prompts differ by design, and a set ordered by prompt length would otherwise look like
/// correlated requests. `None` without baseline requests to compare with.
pub fn send_order_lag1(records: &[IterationRecord], baseline: &[IterationRecord]) -> Option<f64> {
    let measured = |r: &&IterationRecord| !r.warmup && r.error.is_none() && r.total_ms.is_finite();
    let base: Vec<&IterationRecord> = baseline.iter().filter(measured).collect();
    let median_of = |mut values: Vec<f64>| {
        values.sort_by(f64::total_cmp);
        crate::stats::percentile(&values, 50.0)
    };
    let overall = median_of(base.iter().map(|r| r.total_ms).collect())?;
    let expected = |prompt: u32| {
        median_of(base.iter().filter(|r| r.prompt_index == prompt).map(|r| r.total_ms).collect()).unwrap_or(overall)
    };
    let mut sent: Vec<&IterationRecord> = records.iter().filter(measured).collect();
    sent.sort_by_key(|r| r.seq);
    lag1_autocorrelation(&sent.iter().map(|r| r.total_ms - expected(r.prompt_index)).collect::<Vec<f64>>())
}

/// Every threshold of `schedule` checked, the run's requests taken as independent: [`decide_run`] without a
/// lag-1 autocorrelation.
pub fn decide(
    schedule: &ScheduleInput,
    baseline: &Reference,
    observed: (&[f64], &GuardSummary),
    history: &[GuardSummary],
) -> Decision {
    decide_run(schedule, baseline, observed, None, None, history)
}

/// Every threshold of `schedule` checked: `observed` (total times and summary) against `baseline`, and for a
/// change-point or window threshold, the history's summaries (the earlier measured evaluations, oldest first).
/// `lag1` is the run's lag-1 autocorrelation in send order ([`send_order_lag1`]): beyond the white-noise bound,
/// Welch's test counts the run as its effective sample size, and the reasons say so. (The baseline's requests are
/// taken as independent: a pinned baseline keeps its times sorted.) A streamed figure's threshold (TTFT, TPOT,
/// time to first output) is gated by Welch's test of that figure's per-request times, `observed_streamed` against
/// the baseline's.
pub fn decide_run(
    schedule: &ScheduleInput,
    baseline: &Reference,
    observed: (&[f64], &GuardSummary),
    observed_streamed: Option<&StreamedSamples>,
    lag1: Option<f64>,
    history: &[GuardSummary],
) -> Decision {
    let (observed_totals, observed_summary) = observed;
    let evidence = total_time_evidence(observed_totals, &baseline.total_ms, lag1, schedule.alpha);
    let p_value = evidence.p_value;
    let mut judged: Vec<Judged> = schedule
        .thresholds
        .iter()
        .map(|threshold| match (threshold.op, &threshold.test) {
            (Op::ChangePoint, _) => {
                let (check, p) = change_point_check(threshold, history, observed_summary, schedule);
                Judged { check, p_value: p, family: p.map(|p| Family { key: threshold.key(), p, inclusive: true }) }
            }
            (_, Some(test)) => {
                let (check, p) = window_check(threshold, test, history, observed_summary, schedule.alpha);
                Judged { check, p_value: p, family: p.map(|p| Family { key: threshold.key(), p, inclusive: false }) }
            }
            (_, None) if threshold.metric.is_streamed() => {
                let evidence =
                    streamed_evidence(threshold.metric, observed_streamed, baseline.streamed.as_ref(), schedule.alpha);
                let check = check(threshold, (&baseline.summary, observed_summary), &evidence, schedule);
                let key = format!("welch:{}", threshold.metric.as_str());
                let family = evidence.p_value.filter(|_| schedule.require_significance).map(|p| Family {
                    key,
                    p,
                    inclusive: false,
                });
                Judged { check, p_value: evidence.p_value, family }
            }
            (_, None) => {
                let check = check(threshold, (&baseline.summary, observed_summary), &evidence, schedule);
                let gated = threshold.metric.is_latency() && schedule.require_significance;
                let family = p_value.filter(|_| gated).map(|p| Family { key: "welch".into(), p, inclusive: false });
                Judged { check, p_value, family }
            }
        })
        .collect();
    adjust_for_multiple_tests(&mut judged, schedule.alpha);
    let mut checks = Vec::with_capacity(judged.len());
    let mut breaches = Vec::new();
    for Judged { check, p_value, .. } in judged {
        let threshold = check.threshold;
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
                test: threshold.test,
                // A change point's `observed` is the level after the change; the run itself is said beside it.
                latest: (threshold.op == Op::ChangePoint).then(|| threshold.metric.of(observed_summary)).flatten(),
            });
        }
        checks.push(check);
    }
    let (shift, serial) = (evidence.shift, evidence.serial);
    Decision { checks, breaches, p_value, n: (baseline.total_ms.len(), observed_totals.len()), shift, serial }
}

/// A threshold's verdict before the tests are adjusted for one another.
struct Judged {
    check: ThresholdCheck,
    p_value: Option<f64>,
    /// The test its breach rests on, when that test has a p-value.
    family: Option<Family>,
}

/// One test of the evaluation: thresholds gated by the same test (Welch's) share its key and count once.
struct Family {
    key: String,
    p: f64,
    /// Significant at p ≤ α (a change point's permutation test) rather than p < α.
    inclusive: bool,
}

/// With two or more tests, a breach stands only when its test's Benjamini–Hochberg adjusted p-value passes α.
fn adjust_for_multiple_tests(judged: &mut [Judged], alpha: f64) {
    let mut tests: Vec<(&str, f64)> = Vec::new();
    for family in judged.iter().filter_map(|j| j.family.as_ref()) {
        if !tests.iter().any(|(key, _)| *key == family.key) {
            tests.push((&family.key, family.p));
        }
    }
    if tests.len() < 2 {
        return;
    }
    let adjusted = benjamini_hochberg(&tests.iter().map(|(_, p)| *p).collect::<Vec<_>>());
    let adjusted_of: Vec<(String, f64)> = tests.iter().zip(adjusted).map(|((k, _), a)| (k.to_string(), a)).collect();
    let m = adjusted_of.len();
    for j in judged.iter_mut() {
        let (Some(family), true) = (&j.family, j.check.breached) else { continue };
        let Some((_, q)) = adjusted_of.iter().find(|(k, _)| *k == family.key) else { continue };
        let significant = if family.inclusive { *q <= alpha } else { *q < alpha };
        let shown = crate::report::p_value(*q);
        if significant {
            j.check.reason.push_str(&format!(" (Benjamini–Hochberg over {m} tests: adjusted p = {shown})"));
        } else {
            j.check.breached = false;
            j.check.reason = format!(
                "{}; not significant once adjusted for the {m} tests of this evaluation (Benjamini–Hochberg adjusted \
                 p = {shown} vs α = {alpha}): not alerted",
                j.check.reason
            );
        }
    }
}

fn check(
    threshold: &Threshold,
    (baseline, observed): (&GuardSummary, &GuardSummary),
    evidence: &Evidence,
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
    let (crossed, _, change) = crossing(threshold, b, o, "baseline");
    if !crossed {
        return verdict(false, false, format!("within the threshold: {change}"));
    }
    if !((threshold.metric.is_latency() || threshold.metric.is_streamed()) && schedule.require_significance) {
        return verdict(true, true, format!("crossed: {change}"));
    }
    match evidence.p_value {
        Some(p) if p < schedule.alpha => verdict(
            true,
            true,
            format!(
                "crossed and significant: {change}, Welch p = {} < α = {}{}",
                crate::report::p_value(p),
                schedule.alpha,
                evidence.words()
            ),
        ),
        Some(p) => verdict(
            true,
            false,
            format!(
                "crossed but not significant: {change}, Welch p = {} ≥ α = {} (could be noise){}",
                crate::report::p_value(p),
                schedule.alpha,
                evidence.words()
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
    use crate::guard::model::{Cadence, Metric, ReferenceFrom, Severity};
    use crate::model::{BaselineId, BenchmarkSetId, ConnectorId, RunId};
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
            stream: false,
            policy: Default::default(),
        }
    }

    fn summary(p95: f64, mean: f64, error_rate: f64) -> GuardSummary {
        GuardSummary {
            p95_ms: Some(p95),
            mean_ms: Some(mean),
            tok_s: Some(50.0),
            error_rate,
            ..GuardSummary::default()
        }
    }

    fn baseline(total_ms: Vec<f64>, summary: GuardSummary) -> Reference {
        let from = ReferenceFrom::Pinned { baseline_id: BaselineId(Uuid::nil()), run_id: RunId(Uuid::nil()) };
        Reference { total_ms, summary, streamed: None, from }
    }

    fn rule(metric: Metric, op: Op, value: f64) -> Threshold {
        Threshold { metric, op, value, severity: Severity::Critical, test: None }
    }

    // scipy 1.17.1: ttest_ind([210, 220, 205, 230, 215], [100, 104, 98, 101, 99, 103, 97, 102],
    // equal_var=False).pvalue = 6.0905791809414e-06
    const SLOW: [f64; 5] = [210.0, 220.0, 205.0, 230.0, 215.0];
    const FAST: [f64; 8] = [100.0, 104.0, 98.0, 101.0, 99.0, 103.0, 97.0, 102.0];

    // scipy 1.17.1: ttest_ind([110, 112, 108, 111, 109], [20, 21, 19, 22, 20, 21, 19, 20],
    // equal_var=False).pvalue = 1.8032999998345663e-11
    #[test]
    fn a_slower_first_token_breaches_on_welchs_test_of_the_ttfts_while_total_time_holds() {
        let (fast_ttft, slow_ttft) =
            ([20.0, 21.0, 19.0, 22.0, 20.0, 21.0, 19.0, 20.0], [110.0, 112.0, 108.0, 111.0, 109.0]);
        let streamed = |ttft: &[f64]| StreamedSamples { ttft_ms: ttft.to_vec(), ..StreamedSamples::default() };
        let with_ttft = |s: GuardSummary, ttft: f64| GuardSummary { ttft_p95_ms: Some(ttft), ..s };
        let base = Reference {
            streamed: Some(streamed(&fast_ttft)),
            ..baseline(FAST.to_vec(), with_ttft(summary(104.0, 100.5, 0.0), 21.65))
        };
        let mut s =
            schedule(vec![rule(Metric::P95Ms, Op::PctIncrease, 20.0), rule(Metric::TtftP95Ms, Op::PctIncrease, 50.0)]);
        s.stream = true;
        let same_totals: Vec<f64> = FAST.iter().map(|t| t + 0.5).collect();
        let observed = with_ttft(summary(104.5, 101.0, 0.0), 111.8);
        let d = decide_run(&s, &base, (&same_totals, &observed), Some(&streamed(&slow_ttft)), None, &[]);
        assert_eq!(d.breaches.len(), 1, "{:?}", d.checks);
        assert_eq!(d.breaches[0].metric, Metric::TtftP95Ms);
        assert!((d.breaches[0].p_value.unwrap() - 1.8032999998345663e-11).abs() < 1e-15, "{:?}", d.breaches[0].p_value);
        let reason = &d.checks[1].reason;
        assert!(reason.starts_with("crossed and significant") && reason.contains("; TTFT shifted +"), "{reason}");
        assert!(d.checks[0].reason.starts_with("within the threshold"), "{}", d.checks[0].reason);

        // An unstreamed baseline has no TTFT: the threshold is not measurable, never a breach.
        let unstreamed = baseline(FAST.to_vec(), summary(104.0, 100.5, 0.0));
        let d = decide_run(&s, &unstreamed, (&same_totals, &observed), Some(&streamed(&slow_ttft)), None, &[]);
        assert!(d.breaches.is_empty());
        assert_eq!(d.checks[1].reason, "not measurable: the baseline has no ttft_p95_ms");
    }

    #[test]
    fn a_fallen_acceptance_rate_breaches_when_crossed_and_a_missing_one_is_not_measurable() {
        let with_rate = |rate: Option<f64>| GuardSummary { acceptance_rate: rate, ..summary(104.0, 100.5, 0.0) };
        let base = baseline(FAST.to_vec(), with_rate(Some(0.8)));
        let s = schedule(vec![rule(Metric::AcceptanceRate, Op::PctDecrease, 20.0)]);
        let fell = decide(&s, &base, (&FAST, &with_rate(Some(0.5))), &[]);
        assert_eq!(fell.breaches.len(), 1);
        assert!(fell.checks[0].reason.starts_with("crossed: -37.5%"), "{}", fell.checks[0].reason);
        let held = decide(&s, &base, (&FAST, &with_rate(Some(0.7))), &[]);
        assert!(held.breaches.is_empty(), "-12.5% is within 20%");
        let unread = decide(&s, &base, (&FAST, &with_rate(None)), &[]);
        assert_eq!(unread.checks[0].reason, "not measurable: this run has no acceptance_rate");
    }

    #[test]
    fn a_significant_slowdown_breaches_with_its_p_value() {
        let base = baseline(FAST.to_vec(), summary(104.0, 100.5, 0.0));
        let s =
            schedule(vec![rule(Metric::P95Ms, Op::PctIncrease, 20.0), rule(Metric::ErrorRate, Op::AbsIncrease, 0.1)]);
        let d = decide(&s, &base, (&SLOW, &summary(228.0, 216.0, 0.0)), &[]);
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
        // numpy: median of the 40 differences 114.5; 95 % interval (k = 6) 106 to 128.
        let shift = d.shift.unwrap();
        assert_eq!((shift.estimate, shift.low, shift.high, shift.confidence), (114.5, 106.0, 128.0, 0.95));
        assert!(
            d.checks[0]
                .reason
                .ends_with("; total time shifted +114.5 ms (Hodges–Lehmann, 95% interval +106.0 to +128.0 ms)"),
            "{}",
            d.checks[0].reason
        );
    }

    #[test]
    fn a_crossing_that_could_be_noise_is_recorded_but_does_not_breach() {
        // scipy: ttest_ind([90, 100, 180, 200], [100, 150, 95, 110, 120], equal_var=False).pvalue = 0.4068289580096446
        let base = baseline(vec![100.0, 150.0, 95.0, 110.0, 120.0], summary(144.0, 115.0, 0.0));
        let s = schedule(vec![rule(Metric::P95Ms, Op::PctIncrease, 20.0)]);
        let d = decide(&s, &base, (&[90.0, 100.0, 180.0, 200.0], &summary(197.0, 142.5, 0.0)), &[]);
        assert!(d.breaches.is_empty());
        assert!((d.p_value.unwrap() - 0.4068289580096446).abs() < 1e-9, "{:?}", d.p_value);
        assert!(d.checks[0].crossed && !d.checks[0].breached);
        assert!(d.checks[0].reason.contains("not significant"), "{}", d.checks[0].reason);
        let without_gate = ScheduleInput { require_significance: false, ..s };
        assert_eq!(
            decide(&without_gate, &base, (&[90.0, 100.0, 180.0, 200.0], &summary(197.0, 142.5, 0.0)), &[])
                .breaches
                .len(),
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
        let d = decide(&s, &base, (&FAST, &observed), &[]);
        let breached: Vec<Metric> = d.breaches.iter().map(|b| b.metric).collect();
        assert_eq!(breached, [Metric::ErrorRate], "tok/s fell 40 % but the totals are identical: not significant");
        assert!(d.checks[2].reason.contains("not measurable"), "{}", d.checks[2].reason);
    }

    /// A history of p95 figures (tok/s the mirror image), as evaluations record them.
    fn history(p95s: &[f64]) -> Vec<GuardSummary> {
        p95s.iter().map(|&p| GuardSummary { tok_s: Some(10_000.0 / p), ..summary(p, p * 0.8, 0.0) }).collect()
    }

    #[test]
    fn a_change_point_threshold_breaches_while_the_level_after_the_latest_change_is_worse() {
        let base = baseline(FAST.to_vec(), summary(104.0, 100.5, 0.0));
        let s = schedule(vec![rule(Metric::P95Ms, Op::ChangePoint, 10.0), rule(Metric::TokS, Op::ChangePoint, 10.0)]);
        // Ten evaluations near 100 ms, then five near 130 ms; this run is the sixth at the new level.
        let mut p95s = vec![100.0, 102.0, 99.0, 101.0, 98.0, 100.0, 103.0, 99.0, 101.0, 100.0];
        p95s.extend([131.0, 128.0, 130.0, 132.0, 129.0]);
        let now = history(&[130.0])[0];
        let d = decide(&s, &base, (&FAST, &now), &history(&p95s));
        assert_eq!(d.breaches.len(), 2, "{:?}", d.checks);
        let p95 = &d.breaches[0];
        assert_eq!((p95.op, p95.baseline, p95.observed), (Op::ChangePoint, 100.3, 130.0));
        assert!((p95.pct_change.unwrap() - (130.0 - 100.3) / 100.3 * 100.0).abs() < 1e-9);
        assert!(p95.p_value.unwrap() <= 0.05 && p95.p_value != d.p_value, "the change point's own p-value");
        assert!(d.checks[0].reason.contains("change point 6 evaluations ago"), "{}", d.checks[0].reason);
        // tok/s fell by about a quarter: the bad direction for throughput.
        assert!(d.breaches[1].pct_change.unwrap() < -20.0, "{:?}", d.breaches[1]);

        // A change of +5 % is a change point but within a 10 % threshold.
        let small: Vec<f64> = p95s.iter().enumerate().map(|(i, p)| if i >= 10 { p - 25.0 } else { *p }).collect();
        let d = decide(&s, &base, (&FAST, &history(&[105.0])[0]), &history(&small));
        assert!(d.breaches.is_empty(), "{:?}", d.checks);
        assert!(d.checks[0].reason.starts_with("within the threshold: change point"), "{}", d.checks[0].reason);

        // Faster is a change for the better: no breach on latency nor on throughput.
        let faster: Vec<f64> = p95s.iter().enumerate().map(|(i, p)| if i >= 10 { p - 60.0 } else { *p }).collect();
        assert!(decide(&s, &base, (&FAST, &history(&[70.0])[0]), &history(&faster)).breaches.is_empty());
    }

    #[test]
    fn every_breach_is_keyed_as_its_evaluation_records_its_threshold() {
        use crate::guard::model::{EvaluationStatus, PastEvaluation, WindowTestKind};
        let base = baseline(FAST.to_vec(), summary(104.0, 100.5, 0.0));
        // A window test's breach once carried `metric:op` while its evaluation recorded `metric:op:kind`: the alert
        // state machine then never counted it as sustained and no alert opened.
        let kinds = [WindowTestKind::ZScore, WindowTestKind::LogNormal, WindowTestKind::Iqr, WindowTestKind::DeltaIqr];
        for kind in kinds {
            let s = schedule(vec![windowed(Metric::P95Ms, Op::PctIncrease, 5.0, kind)]);
            let d = decide(&s, &base, (&FAST, &summary(2_000.0, 1_500.0, 0.0)), &window_history());
            assert_eq!(d.breaches.len(), 1, "{kind:?}: {:?}", d.checks);
            let recorded = PastEvaluation::of(EvaluationStatus::Breached, Some(&d)).breached;
            assert_eq!(recorded, [d.breaches[0].key()], "{kind:?}");
            assert_eq!(recorded, [format!("p95_ms:pct_increase:{}", kind.as_str())]);
            assert_eq!(d.breaches[0].latest, None, "only a change point has a level apart from the run");
        }
    }

    #[test]
    fn a_change_point_breach_carries_the_runs_own_figure_beside_the_level_after() {
        let base = baseline(FAST.to_vec(), summary(104.0, 100.5, 0.0));
        let s = schedule(vec![rule(Metric::P95Ms, Op::ChangePoint, 10.0)]);
        let mut p95s = vec![100.0, 102.0, 99.0, 101.0, 98.0, 100.0, 103.0, 99.0, 101.0, 100.0];
        p95s.extend([131.0, 128.0, 130.0, 132.0, 129.0]);
        let d = decide(&s, &base, (&FAST, &history(&[140.0])[0]), &history(&p95s));
        let b = &d.breaches[0];
        assert_eq!((b.observed, b.latest), ((131.0 + 128.0 + 130.0 + 132.0 + 129.0 + 140.0) / 6.0, Some(140.0)));
    }

    #[test]
    fn a_change_point_threshold_waits_for_enough_history_and_says_so() {
        let base = baseline(FAST.to_vec(), summary(104.0, 100.5, 0.0));
        let s = schedule(vec![rule(Metric::P95Ms, Op::ChangePoint, 10.0)]);
        let d = decide(&s, &base, (&FAST, &history(&[300.0])[0]), &history(&[100.0, 101.0, 99.0]));
        assert!(d.breaches.is_empty());
        assert_eq!(d.checks[0].reason, "4 evaluations with p95_ms so far; a change point needs 10 (segments of 5)");
        let flat: Vec<f64> = (0..20).map(|i| 100.0 + f64::from(i % 4)).collect();
        let d = decide(&s, &base, (&FAST, &history(&[101.0])[0]), &history(&flat));
        assert!(d.checks[0].reason.starts_with("no change point in the last 21 evaluations"), "{}", d.checks[0].reason);
        // No change is a healthy verdict, measured from the history's one level: an alert a change opened recovers.
        let level = (flat.iter().sum::<f64>() + 101.0) / 21.0;
        assert_eq!(
            (d.checks[0].baseline, d.checks[0].observed, d.checks[0].breached),
            (Some(level), Some(101.0), false)
        );
        let verdict = crate::guard::model::PastEvaluation::of(crate::guard::model::EvaluationStatus::Healthy, Some(&d));
        assert_eq!(verdict.healthy, ["p95_ms:change_point"]);
    }

    /// Ten earlier p95 figures (the window of `stats::history_tests`' scipy checks: mean 817.8, sd 22.11).
    fn window_history() -> Vec<GuardSummary> {
        [812.0, 790.0, 845.0, 801.0, 830.0, 795.0, 860.0, 808.0, 822.0, 815.0]
            .iter()
            .map(|&p| summary(p, p * 0.8, 0.0))
            .collect()
    }

    fn windowed(metric: Metric, op: Op, value: f64, kind: crate::guard::model::WindowTestKind) -> Threshold {
        let test = crate::guard::model::WindowTest { kind, window: 10, min_history: 5 };
        Threshold { test: Some(test), ..rule(metric, op, value) }
    }

    #[test]
    fn a_window_test_breaches_past_its_limit_when_the_change_is_large_enough() {
        use crate::guard::model::WindowTestKind::{Iqr, ZScore};
        let base = baseline(FAST.to_vec(), summary(104.0, 100.5, 0.0));
        let s = schedule(vec![windowed(Metric::P95Ms, Op::PctIncrease, 5.0, ZScore)]);
        let d = decide(&s, &base, (&FAST, &summary(905.0, 700.0, 0.0)), &window_history());
        assert_eq!(d.breaches.len(), 1, "{:?}", d.checks);
        let b = &d.breaches[0];
        // scipy: norm.sf((905 - 817.8) / 22.109826875044597) = 4.007557911064277e-05
        assert!((b.p_value.unwrap() - 4.007_557_911_064_277e-5).abs() < 1e-12, "{b:?}");
        assert_eq!((b.baseline, b.observed), (817.8, 905.0));
        assert!(
            d.checks[0].reason.contains("z_score over the last 10 evaluations: center 817.8 ms, limit 854.167 ms"),
            "{}",
            d.checks[0].reason
        );
        // Past the limit, but +10.7 % is under a 15 % floor: the change is too small to matter.
        let floor = schedule(vec![windowed(Metric::P95Ms, Op::PctIncrease, 15.0, ZScore)]);
        let d = decide(&floor, &base, (&FAST, &summary(905.0, 700.0, 0.0)), &window_history());
        assert!(d.breaches.is_empty() && d.checks[0].reason.starts_with("past the z_score limit"), "{:?}", d.checks);
        // +5.2 % crosses the floor but sits within Tukey's fence (865.9 ms).
        let iqr = schedule(vec![windowed(Metric::P95Ms, Op::PctIncrease, 5.0, Iqr)]);
        let d = decide(&iqr, &base, (&FAST, &summary(860.0, 700.0, 0.0)), &window_history());
        assert!(d.breaches.is_empty() && d.checks[0].crossed, "{:?}", d.checks);
        assert!(d.checks[0].reason.starts_with("crossed but within the window's spread"), "{}", d.checks[0].reason);
        // Too little history: said, not judged.
        let d = decide(&s, &base, (&FAST, &summary(905.0, 700.0, 0.0)), &window_history()[..3]);
        assert_eq!(d.checks[0].reason, "z_score: not judged: 3 earlier evaluations in the window; the test needs 5");
    }

    #[test]
    fn several_tests_at_once_are_adjusted_by_benjamini_hochberg() {
        use crate::guard::model::WindowTestKind::ZScore;
        // The z-score of 860 ms alone: p = 0.028153 (scipy), a breach at α = 0.05.
        let z = windowed(Metric::P95Ms, Op::PctIncrease, 5.0, ZScore);
        let base = baseline(vec![100.0, 150.0, 95.0, 110.0, 120.0], summary(144.0, 115.0, 0.0));
        let totals = [90.0, 100.0, 180.0, 200.0];
        let alone = decide(&schedule(vec![z]), &base, (&totals, &summary(860.0, 142.5, 0.0)), &window_history());
        assert_eq!(alone.breaches.len(), 1, "{:?}", alone.checks);
        assert!(!alone.checks[0].reason.contains("Benjamini"), "one test is not adjusted");
        // With a Welch-gated threshold in the same evaluation (Welch p = 0.4068): scipy's
        // false_discovery_control([0.028153398196051043, 0.4068289580096446]) = [0.0563068, 0.40682896].
        let both = schedule(vec![z, rule(Metric::MeanMs, Op::PctIncrease, 10.0)]);
        let d = decide(&both, &base, (&totals, &summary(860.0, 142.5, 0.0)), &window_history());
        assert!(d.breaches.is_empty(), "{:?}", d.checks);
        assert!(
            d.checks[0].reason.ends_with(
                "not significant once adjusted for the 2 tests of this evaluation (Benjamini–Hochberg adjusted p = \
                 0.0563 vs α = 0.05): not alerted"
            ),
            "{}",
            d.checks[0].reason
        );
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

    // A server warming up: each request a little faster than the one before.
    const WARMING: [f64; 12] = [300.0, 280.0, 260.0, 250.0, 240.0, 230.0, 225.0, 220.0, 218.0, 215.0, 214.0, 212.0];
    const STEADY: [f64; 12] = [195.0, 205.0, 198.0, 202.0, 199.0, 201.0, 197.0, 203.0, 200.0, 196.0, 204.0, 200.0];

    #[test]
    fn correlated_requests_count_as_their_effective_size_and_the_reason_says_so() {
        let base = baseline(STEADY.to_vec(), summary(204.0, 200.0, 0.0));
        let s = schedule(vec![rule(Metric::MeanMs, Op::PctIncrease, 10.0)]);
        let observed = summary(290.0, 238.7, 0.0);
        // scipy 1.17.1: ttest_ind(WARMING, STEADY, equal_var=False).pvalue = 0.0006489875066684969, and with the
        // warming run counted as n_eff = 12(1 − r₁)/(1 + r₁) = 2.237724427727662 requests,
        // ttest_ind_from_stats(mean, std(ddof=1), n_eff, …, equal_var=False).pvalue = 0.2521088756716377.
        let independent = decide(&s, &base, (&WARMING, &observed), &[]);
        assert!((independent.p_value.unwrap() - 0.0006489875066684969).abs() < 1e-12, "{:?}", independent.p_value);
        assert_eq!((independent.breaches.len(), independent.serial), (1, None));
        let r1 = lag1_autocorrelation(&WARMING);
        let d = decide_run(&s, &base, (&WARMING, &observed), None, r1, &[]);
        assert!((d.p_value.unwrap() - 0.2521088756716377).abs() < 1e-9, "{:?}", d.p_value);
        let serial = d.serial.unwrap();
        assert!((serial.effective_n - 2.237724427727662).abs() < 1e-9, "{serial:?}");
        assert!(d.breaches.is_empty(), "12 alike requests are not 12 requests' worth of evidence");
        assert!(
            d.checks[0].reason.ends_with(
                "; consecutive requests were alike (lag-1 autocorrelation 0.69), so Welch counted this run's 12 \
                 requests as 2.2 independent ones"
            ),
            "{}",
            d.checks[0].reason
        );
        let steady = decide_run(&s, &base, (&STEADY, &observed), None, lag1_autocorrelation(&STEADY), &[]);
        assert_eq!(steady.serial, None, "alternating requests are not counted against a run");
    }

    #[test]
    fn a_set_ordered_by_prompt_length_is_not_mistaken_for_correlated_requests() {
        use crate::model::fixtures::iteration_record;
        let record = |seq: u64, prompt: u32, total: f64| IterationRecord {
            prompt_index: prompt,
            ..iteration_record(seq, None, total, false)
        };
        // Prompt i takes 100 + 20·i ms; this run adds a little noise, sent in prompt order (listed backwards).
        let noise = [3.0, -2.0, 1.0, -4.0, 2.0, 0.0, -1.0, 4.0, -3.0, 1.0, 2.0, -2.0];
        let baseline: Vec<IterationRecord> = (0..12).map(|i| record(i, i as u32, 100.0 + 20.0 * i as f64)).collect();
        let run: Vec<IterationRecord> =
            (0..12).rev().map(|i| record(i, i as u32, 100.0 + 20.0 * i as f64 + noise[i as usize])).collect();
        let raw: Vec<f64> = (0..12).map(|i| 100.0 + 20.0 * i as f64 + noise[i]).collect();
        assert!(lag1_autocorrelation(&raw).unwrap() > 0.7, "the raw times trend with the prompts");
        assert_eq!(send_order_lag1(&run, &baseline), lag1_autocorrelation(&noise), "what the prompts do not explain");
        assert_eq!(send_order_lag1(&run, &[]), None, "no baseline requests: taken as independent");
    }
}
