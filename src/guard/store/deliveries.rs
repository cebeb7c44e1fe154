//! The webhook delivery log: each message of a schedule's outbox and how its delivery went, as its page lists them.

use sqlx::any::AnyRow;
use sqlx::Row;

use crate::guard::model::WebhookDelivery;
use crate::model::{ScheduleId, WorkspaceId};
use crate::store::{parse_id, Store, StoreError};

const DELIVERY_COLUMNS: &str =
    "id, alert_id, url, attempts, delivered_at, gave_up_at, next_attempt_at, last_error, created_at";

fn delivery_from_row(row: &AnyRow) -> Result<WebhookDelivery, StoreError> {
    Ok(WebhookDelivery {
        id: row.try_get("id")?,
        alert_id: row.try_get::<Option<String>, _>("alert_id")?.map(|a| parse_id(&a)).transpose()?,
        url: row.try_get("url")?,
        attempts: u32::try_from(row.try_get::<i64, _>("attempts")?).unwrap_or(u32::MAX),
        delivered_at_ms: row.try_get("delivered_at")?,
        gave_up_at_ms: row.try_get("gave_up_at")?,
        next_attempt_at_ms: row.try_get("next_attempt_at")?,
        last_error: row.try_get("last_error")?,
        created_at_ms: row.try_get("created_at")?,
    })
}

impl Store {
    /// The webhook messages of a schedule of `workspace`, newest first: the delivery log.
    pub async fn list_webhook_deliveries(
        &self,
        workspace: WorkspaceId,
        schedule: ScheduleId,
        limit: u32,
    ) -> Result<Vec<WebhookDelivery>, StoreError> {
        let rows = sqlx::query(&format!(
            "SELECT {DELIVERY_COLUMNS} FROM webhook_outbox WHERE workspace_id = $1 AND schedule_id = $2 \
             ORDER BY created_at DESC, id LIMIT $3"
        ))
        .bind(workspace.to_string())
        .bind(schedule.to_string())
        .bind(i64::from(limit))
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(delivery_from_row).collect()
    }

    /// One webhook message of `workspace` and how its delivery went.
    pub async fn webhook_delivery(&self, workspace: WorkspaceId, id: &str) -> Result<WebhookDelivery, StoreError> {
        let row =
            sqlx::query(&format!("SELECT {DELIVERY_COLUMNS} FROM webhook_outbox WHERE workspace_id = $1 AND id = $2"))
                .bind(workspace.to_string())
                .bind(id)
                .fetch_optional(&self.pool)
                .await?;
        delivery_from_row(&row.ok_or(StoreError::NotFound)?)
    }
}
