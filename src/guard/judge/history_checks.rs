//! Thresholds judged by the schedule's history rather than the pinned baseline: a `change_point` threshold (the
//! latest change point of its figure, E-Divisive over the measured evaluations with this one last) and a threshold
//! with a window test (its figure against the same figure over the last evaluations: z-score, log-normal, IQR,
//! delta-IQR). Each says in its reason what it found, or why it could not judge.

use super::crossing::crossing;
use crate::guard::model::{
    EvaluationView, GuardSummary, Op, ScheduleInput, Threshold, ThresholdCheck, WindowTest, WindowTestKind,
};
use crate::stats::change_points::{search, ChangePointSettings};
use crate::stats::history_tests::{judge, HistoryTest, Worse};

/// A verdict with the threshold's figures: the level it was measured from, the figure now.
fn verdict(
    threshold: &Threshold,
    levels: Option<(f64, f64)>,
    shift: Option<f64>,
    breached: bool,
    reason: String,
) -> ThresholdCheck {
    ThresholdCheck {
        threshold: *threshold,
        baseline: levels.map(|l| l.0),
        observed: levels.map(|l| l.1),
        delta: levels.map(|(before, after)| after - before),
        pct_change: shift,
        crossed: breached,
        breached,
        reason,
    }
}

/// A change-point threshold: the latest change point of the metric's history (this evaluation last) and whether
/// the level after it is worse than the level before by the threshold's percent; with the change's p-value (or,
/// with no change, the p-value of the split the search rejected).
pub fn change_point_check(
    threshold: &Threshold,
    history: &[GuardSummary],
    observed: &GuardSummary,
    schedule: &ScheduleInput,
) -> (ThresholdCheck, Option<f64>) {
    let settings = change_point_settings(schedule);
    let metric = threshold.metric;
    let series: Vec<f64> =
        history.iter().chain([observed]).filter_map(|s| metric.of(s)).filter(|v| v.is_finite()).collect();
    let verdict = |levels, shift, breached, reason| verdict(threshold, levels, shift, breached, reason);
    let Some(now) = metric.of(observed) else {
        let reason = format!("not measurable: this run has no {}", metric.as_str());
        return (verdict(None, None, false, reason), None);
    };
    let needed = 2 * settings.min_segment;
    if series.len() < needed {
        let reason = format!(
            "{} evaluations with {} so far; a change point needs {needed} (segments of {})",
            series.len(),
            metric.as_str(),
            settings.min_segment
        );
        return (verdict(None, None, false, reason), None);
    }
    let found = search(&series, &settings);
    let Some(change) = found.changes.last().copied() else {
        let reason = format!(
            "no change point in the last {} evaluations (E-Divisive at α = {}, segments of at least {}); now {}{}",
            series.len(),
            settings.alpha,
            settings.min_segment,
            crate::model::trim_number(now),
            metric.unit()
        );
        // No lasting change: the threshold is met, a healthy verdict measured from the history's one level (so an
        // alert opened by an earlier change recovers once its level is gone). The rejected split's p-value still
        // counts among the evaluation's tests.
        let level = series.iter().sum::<f64>() / series.len() as f64;
        let shift = (level != 0.0).then(|| (now - level) / level * 100.0);
        return (verdict(Some((level, now)), shift, false, reason), found.rejected_p);
    };
    let shift = change.shift_pct();
    let worse = shift.map(|s| if metric.worse_when_higher() { s } else { -s });
    let breached = worse.is_some_and(|w| w >= threshold.value);
    let ago = series.len() - change.index;
    let unit = metric.unit();
    let reason = format!(
        "{} change point {ago} evaluations ago (E-Divisive p = {}): level {}{unit} → {}{unit} ({}; limit {}{}%)",
        if breached { "breached:" } else { "within the threshold:" },
        crate::report::p_value(change.p_value),
        crate::model::trim_number(change.mean_before),
        crate::model::trim_number(change.mean_after),
        shift.map_or("no percentage of a zero level".to_string(), |s| format!("{s:+.1}%")),
        if metric.worse_when_higher() { "+" } else { "−" },
        threshold.value,
    );
    (verdict(Some((change.mean_before, change.mean_after)), shift, breached, reason), Some(change.p_value))
}

/// A threshold with a window test: this evaluation's figure against the last `test.window` measured evaluations'.
/// It breaches when the test puts the figure past its limit (the worse way: down for `pct_decrease`, else up) **and**
/// the change from the window's center crosses the threshold's op and value; with the test's p-value, if it has
/// one.
pub fn window_check(
    threshold: &Threshold,
    test: &WindowTest,
    history: &[GuardSummary],
    observed: &GuardSummary,
    alpha: f64,
) -> (ThresholdCheck, Option<f64>) {
    let metric = threshold.metric;
    let verdict = |levels, shift, breached, reason| verdict(threshold, levels, shift, breached, reason);
    let Some(now) = metric.of(observed).filter(|v| v.is_finite()) else {
        let reason = format!("not measurable: this run has no {}", metric.as_str());
        return (verdict(None, None, false, reason), None);
    };
    let values: Vec<f64> = history.iter().filter_map(|s| metric.of(s)).filter(|v| v.is_finite()).collect();
    let window = &values[values.len().saturating_sub(test.window as usize)..];
    let kind = match test.kind {
        WindowTestKind::ZScore => HistoryTest::ZScore,
        WindowTestKind::LogNormal => HistoryTest::LogNormal,
        WindowTestKind::Iqr => HistoryTest::Iqr,
        WindowTestKind::DeltaIqr => HistoryTest::DeltaIqr,
    };
    let worse = if threshold.op == Op::PctDecrease { Worse::Lower } else { Worse::Higher };
    let name = test.kind.as_str();
    let found = match judge(kind, window, now, alpha, worse, test.min_history as usize) {
        Ok(found) => found,
        Err(why) => return (verdict(None, None, false, format!("{name}: not judged: {}", why.describe())), None),
    };
    let center = found.center;
    let (crossed, pct, change) = crossing(threshold, center, now, "center");
    let unit = metric.unit();
    let figure = |v: f64| format!("{}{unit}", crate::model::trim_number(v));
    let p = found.p_value.map_or(String::new(), |p| format!(", p = {}", crate::report::p_value(p)));
    let tested = format!(
        "{name} over the last {} evaluations: center {}, limit {}, now {}{p}",
        found.n,
        figure(center),
        figure(found.limit),
        figure(now)
    );
    let reason = match (found.beyond, crossed) {
        (true, true) => format!("breached: {change}; {tested}"),
        (true, false) => format!("past the {name} limit but the change is small: {change}; {tested}"),
        (false, true) => format!("crossed but within the window's spread: {change}; {tested}"),
        (false, false) => format!("within the threshold: {change}; {tested}"),
    };
    let check = ThresholdCheck { crossed, ..verdict(Some((center, now)), pct, found.beyond && crossed, reason) };
    (check, found.p_value)
}

/// A schedule's change-point search: its significance level α, its policy's minimum segment.
pub fn change_point_settings(schedule: &ScheduleInput) -> ChangePointSettings {
    ChangePointSettings::new(schedule.alpha, schedule.policy.change_min_segment as usize)
}

/// A schedule's history as change points read it: the summaries of its evaluations that measured the endpoint
/// with a valid run, oldest first, each with when it started; `evaluations` come newest first, as pages list them.
pub fn measured_history(evaluations: &[EvaluationView]) -> Vec<(i64, GuardSummary)> {
    let mut history: Vec<(i64, GuardSummary)> = evaluations
        .iter()
        .filter(|e| e.status.measured())
        .filter_map(|e| Some((e.started_at_ms, e.observed_summary?)))
        .collect();
    history.reverse();
    history
}
