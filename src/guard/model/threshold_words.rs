//! A threshold in words, as the schedule form reads it back under its row: its comparison's words and its value's
//! unit, and the whole rule as a sentence. Pure; the browser's form uses it as it is.

use super::figures::Metric;
use super::schedule::{Op, Threshold};

impl Op {
    /// In words, between a metric and a value (`rises by more than`); its unit follows the value
    /// ([`Op::value_unit`]).
    pub fn label(self) -> &'static str {
        match self {
            Op::PctIncrease | Op::AbsIncrease => "rises by more than",
            Op::PctDecrease => "falls by more than",
            Op::ChangePoint => "settles at a level worse by more than",
        }
    }

    /// The unit of a threshold's value under this comparison: a percentage, or the metric's own unit.
    pub fn value_unit(self, metric: Metric) -> &'static str {
        match self {
            Op::AbsIncrease => metric.unit(),
            Op::PctIncrease | Op::PctDecrease | Op::ChangePoint => " %",
        }
    }
}

impl Threshold {
    /// The threshold as a sentence: `total time p95 rises by more than 10 % over the baseline: a warn alert`.
    pub fn sentence(&self) -> String {
        let value = crate::model::trim_number(self.value);
        let against = match (self.op, &self.test) {
            (Op::ChangePoint, _) => " (a change point in the schedule's history)".to_string(),
            (_, Some(test)) => format!(" beyond the last {} evaluations ({})", test.window, test.kind.as_str()),
            (Op::PctDecrease, None) => " below the baseline".to_string(),
            (_, None) => " over the baseline".to_string(),
        };
        format!(
            "{} {} {value}{}{against}: a {} alert",
            self.metric.label(),
            self.op.label(),
            self.op.value_unit(self.metric),
            self.severity.as_str()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::guard::model::{Severity, WindowTest};

    #[test]
    fn a_threshold_reads_as_a_sentence() {
        let t = |metric, op, value, severity, test: Option<&str>| Threshold {
            metric,
            op,
            value,
            severity,
            test: test.map(|t| WindowTest::try_from(t.to_string()).unwrap()),
        };
        let table = [
            (
                t(Metric::P95Ms, Op::PctIncrease, 10.0, Severity::Warn, None),
                "total time p95 rises by more than 10 % over the baseline: a warn alert",
            ),
            (
                t(Metric::TokS, Op::PctDecrease, 15.5, Severity::Critical, None),
                "one request's output speed (tok/s) falls by more than 15.5 % below the baseline: a critical alert",
            ),
            (
                t(Metric::TtftP95Ms, Op::AbsIncrease, 50.0, Severity::Warn, None),
                "TTFT p95 rises by more than 50 ms over the baseline: a warn alert",
            ),
            (
                t(Metric::ErrorRate, Op::AbsIncrease, 0.05, Severity::Critical, None),
                "the error rate rises by more than 0.05 over the baseline: a critical alert",
            ),
            (
                t(Metric::MeanMs, Op::ChangePoint, 20.0, Severity::Warn, None),
                "mean total time settles at a level worse by more than 20 % (a change point in the schedule's history): a warn alert",
            ),
            (
                t(Metric::P95Ms, Op::PctIncrease, 10.0, Severity::Warn, Some("z_score:10")),
                "total time p95 rises by more than 10 % beyond the last 10 evaluations (z_score): a warn alert",
            ),
        ];
        for (threshold, sentence) in table {
            assert_eq!(threshold.sentence(), sentence);
        }
    }
}
