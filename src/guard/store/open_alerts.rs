//! The alerts of a schedule still open (unacknowledged), as the alert state machine reads them: read by finishing an
//! evaluation (`alerts`) and by the "cannot measure" alert (`cannot_measure`); and those a PagerDuty receiver has
//! an incident open for, which acknowledging resolves.

use sqlx::Row;

use crate::guard::model::{AlertKind, OpenAlert, Receiver};
use crate::model::{AlertId, ScheduleId, WorkspaceId};
use crate::store::parse_id;
use crate::store::{Store, StoreError};

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

/// An open alert whose incident is open in PagerDuty: not acknowledged, not recovered, of a schedule that pages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PagedAlert {
    /// The alert (the incident's `dedup_key`).
    pub alert: AlertId,
    /// Its schedule.
    pub schedule: ScheduleId,
    /// The schedule's Events API URL.
    pub url: String,
}

impl Store {
    /// The open, unrecovered alerts of `workspace` (only `which`, when given) whose schedule sends to PagerDuty: the
    /// incidents an acknowledgement here resolves there.
    pub async fn paged_alerts(
        &self,
        workspace: WorkspaceId,
        which: Option<AlertId>,
    ) -> Result<Vec<PagedAlert>, StoreError> {
        let rows = sqlx::query(
            "SELECT a.id, a.schedule_id, s.webhook_url FROM guard_alerts a JOIN guard_schedules s ON s.id = a.schedule_id \
             WHERE a.workspace_id = $1 AND a.acknowledged = 0 AND a.recovered_at IS NULL AND s.receiver = $2 \
             AND s.webhook_url IS NOT NULL AND ($3 = '' OR a.id = $3)",
        )
        .bind(workspace.to_string())
        .bind(Receiver::PagerDuty.as_str())
        .bind(which.map(|a| a.to_string()).unwrap_or_default())
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|row| {
                Ok(PagedAlert {
                    alert: parse_id(&row.try_get::<String, _>("id")?)?,
                    schedule: parse_id(&row.try_get::<String, _>("schedule_id")?)?,
                    url: row.try_get("webhook_url")?,
                })
            })
            .collect()
    }

    /// The open alerts of `id`'s incident, `id` first: the other breaches its evaluation opened (or updated last)
    /// on the same schedule; `id` alone for a "cannot measure" alert.
    pub async fn incident_alerts(&self, workspace: WorkspaceId, id: AlertId) -> Result<Vec<AlertId>, StoreError> {
        let rows = sqlx::query(
            "SELECT b.id FROM guard_alerts a JOIN guard_alerts b ON b.schedule_id = a.schedule_id \
             AND b.evaluation_id = a.evaluation_id AND b.kind = a.kind AND b.acknowledged = 0 AND b.id <> a.id \
             WHERE a.id = $1 AND a.workspace_id = $2 AND a.kind = $3 ORDER BY b.id",
        )
        .bind(id.to_string())
        .bind(workspace.to_string())
        .bind(AlertKind::Breach.as_str())
        .fetch_all(&self.pool)
        .await?;
        let mut ids = vec![id];
        for row in &rows {
            ids.push(parse_id(&row.try_get::<String, _>("id")?)?);
        }
        Ok(ids)
    }
}
