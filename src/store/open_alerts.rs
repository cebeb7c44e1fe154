//! The alerts of a schedule still open (unacknowledged), as the alert state machine reads them: read by finishing an
//! evaluation (`alerts`) and by the "cannot measure" alert (`cannot_measure`).

use sqlx::Row;

use super::workspaces::parse_id;
use super::StoreError;
use crate::model::{OpenAlert, ScheduleId};

/// The schedule's unacknowledged alerts.
pub(super) async fn open_alerts(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    schedule: ScheduleId,
) -> Result<Vec<OpenAlert>, StoreError> {
    let rows = sqlx::query(
        "SELECT id, threshold_key, recovered_at, announced FROM guard_alerts WHERE schedule_id = $1 AND acknowledged = 0",
    )
    .bind(schedule.to_string())
    .fetch_all(&mut **tx)
    .await?;
    rows.iter()
        .map(|row| {
            Ok(OpenAlert {
                id: parse_id(&row.try_get::<String, _>("id")?)?,
                threshold_key: row.try_get("threshold_key")?,
                recovered: row.try_get::<Option<i64>, _>("recovered_at")?.is_some(),
                announced: row.try_get::<i64, _>("announced")? != 0,
            })
        })
        .collect()
}
