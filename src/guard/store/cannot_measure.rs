//! The schedule's "cannot measure" alert: one per schedule (its threshold key is `CANNOT_MEASURE_KEY`), opened
//! after evaluations in a row that could not measure and moved on while they go on.

use super::open_alerts::open_alerts;
use super::schedules::Claim;
use crate::guard::model::{CannotMeasure, CannotMeasurePlan, EvaluationEnd, CANNOT_MEASURE_KEY};
use crate::model::AlertId;
use crate::store::{bool_to_db, to_json, StoreError};

/// Opens or moves on the schedule's "cannot measure" alert; the alert and what to announce when it opened or
/// relapsed.
pub(super) async fn apply_cannot_measure(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    claim: &Claim,
    end: &EvaluationEnd,
    plan: &CannotMeasurePlan,
    announce: bool,
    now_ms: i64,
) -> Result<Option<(AlertId, CannotMeasure)>, StoreError> {
    let observed = to_json(&end.observed().map(|(_, summary)| summary))?;
    let run = end.run().map(|r| r.to_string());
    let (id, reason, evaluations, announce) = match plan {
        CannotMeasurePlan::Open { reason, evaluations } => {
            let id = AlertId::new_random();
            let what = to_json(&CannotMeasure { reason: reason.clone(), evaluations: *evaluations })?;
            let inserted = sqlx::query(
                "INSERT INTO guard_alerts (id, workspace_id, schedule_id, threshold_key, severity, acknowledged, \
                 breach, observed, baseline, evaluation_id, run_id, breach_count, created_at, updated_at, kind, \
                 cannot_measure, announced) VALUES ($1, $2, $3, $4, 'warn', 0, 'null', $5, 'null', $6, $7, $8, $9, \
                 $9, 'cannot_measure', $10, $11) ON CONFLICT DO NOTHING",
            )
            .bind(id.to_string())
            .bind(claim.workspace.to_string())
            .bind(claim.schedule.to_string())
            .bind(CANNOT_MEASURE_KEY)
            .bind(&observed)
            .bind(claim.evaluation.to_string())
            .bind(run.clone())
            .bind(i64::from(*evaluations))
            .bind(now_ms)
            .bind(what)
            .bind(bool_to_db(announce))
            .execute(&mut **tx)
            .await?
            .rows_affected();
            if inserted == 1 {
                let what = CannotMeasure { reason: reason.clone(), evaluations: *evaluations };
                return Ok(announce.then_some((id, what)));
            }
            // Opened a moment ago by another evaluation of this schedule: move that one on instead.
            let open = open_alerts(tx, claim.schedule).await?;
            let Some(alert) = open.iter().find(|a| a.threshold_key == CANNOT_MEASURE_KEY) else { return Ok(None) };
            (alert.id, reason, *evaluations, false)
        }
        CannotMeasurePlan::Update { id, reason, evaluations, relapsed } => (*id, reason, *evaluations, *relapsed),
    };
    let what = CannotMeasure { reason: reason.clone(), evaluations };
    // Announced now, it is open and told again; otherwise only its figures move on.
    let told = if announce { ", recovered_at = NULL, announced = 1" } else { "" };
    sqlx::query(&format!(
        "UPDATE guard_alerts SET cannot_measure = $1, observed = $2, evaluation_id = $3, run_id = $4, \
         breach_count = $5, updated_at = $6{told} WHERE id = $7"
    ))
    .bind(to_json(&what)?)
    .bind(observed)
    .bind(claim.evaluation.to_string())
    .bind(run)
    .bind(i64::from(evaluations))
    .bind(now_ms)
    .bind(id.to_string())
    .execute(&mut **tx)
    .await?;
    Ok(announce.then_some((id, what)))
}
