//! The alert state machine, as a pure function: from an evaluation's breaches and the schedule's open alerts to
//! the plan of what changes. A breach of a threshold with no open alert opens one; a breach of a threshold whose
//! alert is still open updates that alert and sends nothing; a healthy, failed or uncompared evaluation changes
//! nothing (alerts close only by hand). A webhook and an e-mail go out only when something opened, and only on
//! the channels the schedule has. `Store::finish_evaluation` applies the plan in one transaction.

use crate::model::{AlertPlan, Breach, OpenAlert};

/// The channels a schedule notifies on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Channels {
    /// It has a webhook URL.
    pub webhook: bool,
    /// It has an e-mail address, and e-mail is on.
    pub email: bool,
}

/// What `breaches` do to a schedule whose open alerts are `open`.
pub fn plan_alerts(breaches: &[Breach], open: &[OpenAlert], channels: Channels) -> AlertPlan {
    let mut plan = AlertPlan::default();
    let mut seen: Vec<String> = Vec::with_capacity(breaches.len());
    for breach in breaches {
        let key = breach.key();
        // A schedule's thresholds have distinct keys (validation refuses duplicates); should two breaches still
        // share one, the first decides, so a threshold never gets two alerts from one evaluation.
        if seen.contains(&key) {
            continue;
        }
        match open.iter().find(|alert| alert.threshold_key == key) {
            Some(alert) => plan.update.push((alert.id, breach.clone())),
            None => plan.open.push(breach.clone()),
        }
        seen.push(key);
    }
    let announce = !plan.open.is_empty();
    plan.webhook = announce && channels.webhook;
    plan.email = announce && channels.email;
    plan
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{AlertId, Metric, Op, Severity};

    fn breach(metric: Metric, op: Op) -> Breach {
        Breach {
            metric,
            op,
            threshold: 10.0,
            delta: 50.0,
            pct_change: Some(25.0),
            p_value: Some(0.001),
            severity: Severity::Warn,
            baseline: 200.0,
            observed: 250.0,
        }
    }

    fn open_on(breach: &Breach) -> OpenAlert {
        OpenAlert { id: AlertId::new_random(), threshold_key: breach.key() }
    }

    const BOTH: Channels = Channels { webhook: true, email: true };

    #[test]
    fn a_first_breach_opens_an_alert_and_announces_it_on_every_channel() {
        let p95 = breach(Metric::P95Ms, Op::PctIncrease);
        let plan = plan_alerts(std::slice::from_ref(&p95), &[], BOTH);
        assert_eq!(plan, AlertPlan { open: vec![p95], update: vec![], webhook: true, email: true });
    }

    #[test]
    fn a_breach_of_an_open_alert_updates_it_and_sends_nothing() {
        let p95 = breach(Metric::P95Ms, Op::PctIncrease);
        let open = open_on(&p95);
        let plan = plan_alerts(std::slice::from_ref(&p95), std::slice::from_ref(&open), BOTH);
        assert_eq!(plan, AlertPlan { open: vec![], update: vec![(open.id, p95)], webhook: false, email: false });
    }

    #[test]
    fn one_new_breach_beside_an_open_one_announces_only_the_new_one() {
        let (p95, cost) = (breach(Metric::P95Ms, Op::PctIncrease), breach(Metric::CostUsd, Op::AbsIncrease));
        let open = open_on(&p95);
        let plan = plan_alerts(&[p95.clone(), cost.clone()], std::slice::from_ref(&open), BOTH);
        assert_eq!(plan.open, vec![cost]);
        assert_eq!(plan.update, vec![(open.id, p95)]);
        assert!(plan.webhook && plan.email);
    }

    #[test]
    fn the_same_metric_with_another_op_is_another_threshold() {
        let up = breach(Metric::MeanMs, Op::PctIncrease);
        let abs = breach(Metric::MeanMs, Op::AbsIncrease);
        let plan = plan_alerts(std::slice::from_ref(&abs), &[open_on(&up)], BOTH);
        assert_eq!(plan.open, vec![abs]);
        assert!(plan.update.is_empty());
    }

    #[test]
    fn no_breach_changes_nothing_and_open_alerts_stay_open() {
        let open = open_on(&breach(Metric::P95Ms, Op::PctIncrease));
        assert_eq!(plan_alerts(&[], &[open], BOTH), AlertPlan::default());
    }

    #[test]
    fn only_the_schedules_channels_are_used() {
        let p95 = [breach(Metric::P95Ms, Op::PctIncrease)];
        let webhook_only = plan_alerts(&p95, &[], Channels { webhook: true, email: false });
        assert!(webhook_only.webhook && !webhook_only.email);
        let neither = plan_alerts(&p95, &[], Channels::default());
        assert_eq!(neither.open.len(), 1, "the alert opens even when nobody is told: the feed shows it");
        assert!(!neither.webhook && !neither.email);
    }

    #[test]
    fn a_repeated_threshold_in_one_evaluation_opens_one_alert() {
        let first = breach(Metric::P95Ms, Op::PctIncrease);
        let again = Breach { severity: Severity::Critical, ..first.clone() };
        let plan = plan_alerts(&[first.clone(), again], &[], BOTH);
        assert_eq!(plan.open, vec![first]);
    }
}
