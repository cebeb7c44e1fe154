//! Incidents: what one evaluation breached, shown and acknowledged as one. Alerts stay one per threshold (each
//! sustains, recovers and mutes on its own), and those whose last breach was the same evaluation of the same
//! schedule are one incident — one slowdown that crossed two thresholds is one thing to look at, not two.

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
}
