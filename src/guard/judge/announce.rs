//! What an evaluation announces, made from what applying its alert plan did. The plan (`alerts::plan_alerts`) says
//! which alerts should open, relapse and recover; the store applies it and reports what it found (an alert another
//! replica opened a moment earlier is updated, not opened; one already marked recovered is not recovered again).
//! This rule turns those facts into the notices, in the order their messages are written: the opened and the
//! relapsed together, the recovered, the "cannot measure", then "measurable again".

use crate::guard::model::{Breach, CannotMeasure, Notice};
use crate::model::AlertId;

/// What applying an alert plan did, as the store found it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Applied {
    /// Alerts this evaluation opened that are announced (a muted threshold's open silently), with their breach.
    pub opened: Vec<(AlertId, Breach)>,
    /// Open alerts breached again after they had recovered, with their breach.
    pub relapsed: Vec<(AlertId, Breach)>,
    /// Alerts this evaluation marked recovered, with their last breach.
    pub recovered: Vec<(AlertId, Breach)>,
    /// The "cannot measure" alert opened or relapsed and announced, with what could not be measured.
    pub cannot_measure: Option<(AlertId, CannotMeasure)>,
    /// The "cannot measure" alert to announce as measurable again.
    pub measurable_again: Option<AlertId>,
}

/// The notices of `applied`, each with the alerts it is about in the order of its breaches.
pub fn announcements(applied: Applied) -> Vec<(Vec<AlertId>, Notice)> {
    let mut notices = Vec::new();
    let opened: Vec<(AlertId, Breach)> = applied.opened.into_iter().chain(applied.relapsed).collect();
    if !opened.is_empty() {
        let (ids, breaches) = opened.into_iter().unzip();
        notices.push((ids, Notice::Opened(breaches)));
    }
    if !applied.recovered.is_empty() {
        let (ids, breaches) = applied.recovered.into_iter().unzip();
        notices.push((ids, Notice::Recovered(breaches)));
    }
    if let Some((id, what)) = applied.cannot_measure {
        notices.push((vec![id], Notice::CannotMeasure(what)));
    }
    if let Some(id) = applied.measurable_again {
        notices.push((vec![id], Notice::MeasurableAgain));
    }
    notices
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::guard::model::{Metric, Op, Severity};

    fn breach(metric: Metric) -> Breach {
        Breach {
            metric,
            op: Op::PctIncrease,
            threshold: 10.0,
            delta: 20.0,
            pct_change: Some(20.0),
            p_value: Some(0.01),
            severity: Severity::Warn,
            baseline: 100.0,
            observed: 120.0,
            test: None,
            latest: None,
        }
    }

    fn ids(n: usize) -> Vec<AlertId> {
        (0..n).map(|_| AlertId::new_random()).collect()
    }

    #[test]
    fn nothing_applied_announces_nothing() {
        assert!(announcements(Applied::default()).is_empty());
    }

    #[test]
    fn the_opened_and_the_relapsed_are_one_notice_in_that_order_then_the_recovered() {
        let id = ids(4);
        let applied = Applied {
            opened: vec![(id[0], breach(Metric::P95Ms))],
            relapsed: vec![(id[1], breach(Metric::MeanMs))],
            recovered: vec![(id[2], breach(Metric::ErrorRate)), (id[3], breach(Metric::TokS))],
            ..Applied::default()
        };
        let notices = announcements(applied);
        assert_eq!(
            notices,
            [
                (vec![id[0], id[1]], Notice::Opened(vec![breach(Metric::P95Ms), breach(Metric::MeanMs)])),
                (vec![id[2], id[3]], Notice::Recovered(vec![breach(Metric::ErrorRate), breach(Metric::TokS)])),
            ]
        );
    }

    #[test]
    fn cannot_measure_and_measurable_again_come_last_each_about_its_alert() {
        let id = ids(2);
        let what = CannotMeasure { reason: "the endpoint answered 503".into(), evaluations: 3 };
        let applied = Applied {
            relapsed: vec![(id[0], breach(Metric::P95Ms))],
            cannot_measure: Some((id[1], what.clone())),
            measurable_again: Some(id[1]),
            ..Applied::default()
        };
        let notices = announcements(applied);
        assert_eq!(
            notices,
            [
                (vec![id[0]], Notice::Opened(vec![breach(Metric::P95Ms)])),
                (vec![id[1]], Notice::CannotMeasure(what)),
                (vec![id[1]], Notice::MeasurableAgain),
            ]
        );
    }
}
