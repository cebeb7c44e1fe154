//! Incidents: what one evaluation breached, shown and acknowledged as one. Alerts stay one per threshold (each
//! sustains, recovers and mutes on its own), and those whose last breach was the same evaluation of the same
//! schedule are one incident — one slowdown that crossed two thresholds is one thing to look at, not two.
//! The server folds them for the feed (`folded`); the browser build carries none of this.

use super::records::AlertView;
use super::states::AlertKind;

/// `alerts` (as the feed lists them) gathered into incidents, each in the order of its first alert: breaches of the
/// same evaluation, open or acknowledged alike, are one; a "cannot measure" alert is one of its own.
pub fn incidents(alerts: Vec<AlertView>) -> Vec<Vec<AlertView>> {
    let mut gathered: Vec<Vec<AlertView>> = Vec::new();
    for alert in alerts {
        let same = |other: &AlertView| {
            other.kind == AlertKind::Breach
                && alert.kind == AlertKind::Breach
                && other.schedule_id == alert.schedule_id
                && other.evaluation_id == alert.evaluation_id
                && other.acknowledged == alert.acknowledged
        };
        match gathered.iter_mut().find(|incident| incident.first().is_some_and(same)) {
            Some(incident) => incident.push(alert),
            None => gathered.push(vec![alert]),
        }
    }
    gathered
}

/// `alerts` with each incident folded into one alert, which lists the others' breaches (`also`): what the feed
/// shows, one card an incident. The card leads with its most severe breach, then the figure that comes first
/// (p95 before p50 before the mean …), whatever order the store listed them in.
pub fn folded(alerts: Vec<AlertView>) -> Vec<AlertView> {
    incidents(alerts)
        .into_iter()
        .filter_map(|mut incident| {
            incident.sort_by_key(|alert| {
                alert.breach.as_ref().map(|b| (b.severity != super::Severity::Critical, b.metric as u8))
            });
            let mut alerts = incident.into_iter();
            let mut first = alerts.next()?;
            first.also = alerts.filter_map(|a| a.breach).collect();
            first.also_keys = first.also.iter().map(super::Breach::key).collect();
            Some(first)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{AlertId, EvaluationId, ScheduleId};

    fn alert(schedule: ScheduleId, evaluation: EvaluationId, kind: AlertKind, acknowledged: bool) -> AlertView {
        AlertView {
            id: AlertId::new_random(),
            schedule_id: schedule,
            schedule_name: "checkout".into(),
            kind,
            breach: None,
            cannot_measure: None,
            run_id: None,
            observed: None,
            baseline: None,
            breach_count: 1,
            recovered_at_ms: None,
            announced: true,
            muted_until_ms: None,
            acknowledged,
            acknowledged_at_ms: None,
            created_at_ms: 0,
            updated_at_ms: 0,
            healthy_since_ms: None,
            evaluation_id: evaluation,
            context: None,
            also: Vec::new(),
            why_html: None,
            also_keys: Vec::new(),
        }
    }

    #[test]
    fn the_breaches_of_one_evaluation_are_one_incident() {
        let (checkout, search) = (ScheduleId::new_random(), ScheduleId::new_random());
        let (first, second) = (EvaluationId::new_random(), EvaluationId::new_random());
        let b = AlertKind::Breach;
        let list = vec![
            alert(checkout, second, b, false),
            alert(search, second, b, false),
            alert(checkout, second, b, false),
            alert(checkout, first, b, false),
            alert(checkout, second, AlertKind::CannotMeasure, false),
            alert(checkout, second, b, true),
        ];
        let ids: Vec<AlertId> = list.iter().map(|a| a.id).collect();
        let grouped: Vec<Vec<AlertId>> =
            incidents(list).into_iter().map(|i| i.into_iter().map(|a| a.id).collect()).collect();
        assert_eq!(
            grouped,
            [vec![ids[0], ids[2]], vec![ids[1]], vec![ids[3]], vec![ids[4]], vec![ids[5]]],
            "same schedule and evaluation, both open: one; another schedule, another evaluation, a cannot-measure \
             alert or one acknowledged apart: each its own"
        );
    }

    #[test]
    fn a_folded_incident_leads_with_its_most_severe_first_figure_and_lists_the_others() {
        use crate::guard::model::{Breach, Metric, Op, Severity};
        let breach = |metric, severity| Breach {
            metric,
            op: Op::PctIncrease,
            threshold: 50.0,
            delta: 10.0,
            pct_change: Some(60.0),
            p_value: Some(0.01),
            severity,
            baseline: 10.0,
            observed: 20.0,
            test: None,
            latest: None,
        };
        let (schedule, evaluation) = (ScheduleId::new_random(), EvaluationId::new_random());
        let with = |metric, severity| AlertView {
            breach: Some(breach(metric, severity)),
            ..alert(schedule, evaluation, AlertKind::Breach, false)
        };
        let (warn, critical) = (Severity::Warn, Severity::Critical);
        // (the incident as the store lists it, the breach its card leads with, the others in order)
        let table = [
            (vec![(Metric::MeanMs, warn), (Metric::P95Ms, warn)], (Metric::P95Ms, warn), vec![(Metric::MeanMs, warn)]),
            (vec![(Metric::P95Ms, warn), (Metric::MeanMs, warn)], (Metric::P95Ms, warn), vec![(Metric::MeanMs, warn)]),
            (
                vec![(Metric::P95Ms, warn), (Metric::ErrorRate, critical), (Metric::P50Ms, warn)],
                (Metric::ErrorRate, critical),
                vec![(Metric::P95Ms, warn), (Metric::P50Ms, warn)],
            ),
        ];
        for (listed, lead, others) in table {
            let list: Vec<AlertView> = listed.iter().map(|&(m, s)| with(m, s)).collect();
            let lead_id = list[listed.iter().position(|&l| l == lead).unwrap()].id;
            let cards = folded(list);
            assert_eq!(cards.len(), 1, "{listed:?}");
            assert_eq!(cards[0].id, lead_id, "{listed:?}");
            let also: Vec<Breach> = others.iter().map(|&(m, s)| breach(m, s)).collect();
            assert_eq!(cards[0].also, also, "{listed:?}");
            let keys: Vec<String> = also.iter().map(Breach::key).collect();
            assert_eq!(cards[0].also_keys, keys);
        }
        // A "cannot measure" alert of the same evaluation is a card of its own.
        let cards =
            folded(vec![with(Metric::P50Ms, warn), alert(schedule, evaluation, AlertKind::CannotMeasure, false)]);
        assert_eq!(cards.len(), 2, "the breach's card and the cannot-measure one");
        assert!(cards[1].also.is_empty());
    }
}
