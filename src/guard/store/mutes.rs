//! Mutes: a schedule, or one of its thresholds, silenced until a time (maintenance). Evaluations go on and alerts
//! still open; the state machine reads the mutes in force to send nothing about them.

use sqlx::Row;

use crate::guard::model::Mute;
use crate::model::{ScheduleId, WorkspaceId};
use crate::store::parse_id;
use crate::store::{Store, StoreError};

impl Store {
    /// Mutes a schedule of `workspace` (`threshold_key` `None`) or one of its thresholds until `until_ms`, replacing
    /// an earlier mute of the same. `NotFound` when the schedule is not in `workspace`.
    pub async fn mute(
        &self,
        workspace: WorkspaceId,
        schedule: ScheduleId,
        threshold_key: Option<&str>,
        until_ms: i64,
        now_ms: i64,
    ) -> Result<Mute, StoreError> {
        self.workspace_row("guard_schedules", "id", workspace, schedule).await?;
        let key = threshold_key.unwrap_or_default();
        sqlx::query(
            "INSERT INTO guard_mutes (schedule_id, threshold_key, workspace_id, until_at, created_at) \
             VALUES ($1, $2, $3, $4, $5) ON CONFLICT (schedule_id, threshold_key) DO UPDATE SET until_at = $4, \
             created_at = $5",
        )
        .bind(schedule.to_string())
        .bind(key)
        .bind(workspace.to_string())
        .bind(until_ms)
        .bind(now_ms)
        .execute(&self.pool)
        .await?;
        Ok(Mute { schedule_id: schedule, threshold_key: threshold_key.map(String::from), until_ms })
    }

    /// Ends a mute of a schedule of `workspace` now; `false` when there was none.
    pub async fn unmute(
        &self,
        workspace: WorkspaceId,
        schedule: ScheduleId,
        threshold_key: Option<&str>,
    ) -> Result<bool, StoreError> {
        self.workspace_row("guard_schedules", "id", workspace, schedule).await?;
        let removed =
            sqlx::query("DELETE FROM guard_mutes WHERE schedule_id = $1 AND threshold_key = $2 AND workspace_id = $3")
                .bind(schedule.to_string())
                .bind(threshold_key.unwrap_or_default())
                .bind(workspace.to_string())
                .execute(&self.pool)
                .await?
                .rows_affected();
        Ok(removed > 0)
    }

    /// The mutes of `workspace` in force at `now_ms`, soonest to end first.
    pub async fn list_mutes(&self, workspace: WorkspaceId, now_ms: i64) -> Result<Vec<Mute>, StoreError> {
        let rows = sqlx::query(
            "SELECT schedule_id, threshold_key, until_at FROM guard_mutes WHERE workspace_id = $1 AND until_at > $2 \
             ORDER BY until_at, schedule_id, threshold_key",
        )
        .bind(workspace.to_string())
        .bind(now_ms)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|row| {
                let key: String = row.try_get("threshold_key")?;
                Ok(Mute {
                    schedule_id: parse_id(&row.try_get::<String, _>("schedule_id")?)?,
                    threshold_key: (!key.is_empty()).then_some(key),
                    until_ms: row.try_get("until_at")?,
                })
            })
            .collect()
    }
}

/// The schedule's mutes in force at `now_ms`.
pub(super) async fn mutes_in_force(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    schedule: ScheduleId,
    now_ms: i64,
) -> Result<Vec<Mute>, StoreError> {
    let rows = sqlx::query("SELECT threshold_key, until_at FROM guard_mutes WHERE schedule_id = $1 AND until_at > $2")
        .bind(schedule.to_string())
        .bind(now_ms)
        .fetch_all(&mut **tx)
        .await?;
    rows.iter()
        .map(|row| {
            let key: String = row.try_get("threshold_key")?;
            Ok(Mute {
                schedule_id: schedule,
                threshold_key: (!key.is_empty()).then_some(key),
                until_ms: row.try_get("until_at")?,
            })
        })
        .collect()
}
