//! Whether a threshold's figure crossed its op and value, and the change in words: shared by the baseline
//! comparison (`decide`, from the baseline's figure) and the window tests (`history_checks`, from the window's
//! center).

use crate::guard::model::{Op, Threshold};

/// Whether the figure going `from` → `to` crosses `threshold`'s op and value, the change in percent of `from`, and
/// the change in words (`+12.3% (limit +10%)`); `from` is named `reference` when it is zero. A baseline threshold
/// measures from the baseline, a window test from the window's center.
pub(super) fn crossing(threshold: &Threshold, from: f64, to: f64, reference: &str) -> (bool, Option<f64>, String) {
    let pct = (from != 0.0).then(|| (to - from) / from * 100.0);
    let crossed = match threshold.op {
        Op::PctIncrease => pct.is_some_and(|p| p >= threshold.value),
        Op::PctDecrease => pct.is_some_and(|p| -p >= threshold.value),
        Op::AbsIncrease => to - from >= threshold.value,
        Op::ChangePoint => unreachable!("a change-point threshold reads the history (change_point_check)"),
    };
    let change = match (threshold.op, pct) {
        (Op::AbsIncrease, _) => format!("{:+.4} (limit +{})", to - from, threshold.value),
        (_, Some(p)) => {
            format!("{p:+.1}% (limit {}{}%)", if threshold.op == Op::PctIncrease { "+" } else { "−" }, threshold.value)
        }
        (_, None) => format!("no percentage of a zero {reference}"),
    };
    (crossed, pct, change)
}
