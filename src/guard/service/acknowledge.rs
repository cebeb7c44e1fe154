//! Acknowledging alerts — an incident's together — and telling PagerDuty: an acknowledged alert whose incident is still open there (it never
//! recovered, so no `resolve` went yet) gets a `resolve` event through the webhook outbox. The acknowledgement
//! stands whatever happens to the event; the outbox retries it like any message.

use crate::guard::model::Receiver;
use crate::guard::notify::{new_message_id, resolve_event};
use crate::guard::store::{OutboxRow, Recipient};
use crate::model::{AlertId, WorkspaceId};
use crate::store::{Store, StoreError};

/// Acknowledges alert `id` of `workspace` and the other open alerts of its incident (the thresholds the same
/// evaluation breached: one card in the feed); `false` when they were acknowledged already.
pub async fn acknowledge_alert(
    store: &Store,
    workspace: WorkspaceId,
    id: AlertId,
    now_ms: i64,
) -> Result<bool, StoreError> {
    let mut any = false;
    for alert in store.incident_alerts(workspace, id).await? {
        let paged = store.paged_alerts(workspace, Some(alert)).await?;
        let changed = store.acknowledge_alert(workspace, alert, now_ms).await?;
        if changed {
            resolve_in_pagerduty(store, workspace, &paged, now_ms).await?;
        }
        any |= changed;
    }
    Ok(any)
}

/// Acknowledges every open alert of `workspace`; how many.
pub async fn acknowledge_all_alerts(store: &Store, workspace: WorkspaceId, now_ms: i64) -> Result<u64, StoreError> {
    let paged = store.paged_alerts(workspace, None).await?;
    let changed = store.acknowledge_all_alerts(workspace, now_ms).await?;
    resolve_in_pagerduty(store, workspace, &paged, now_ms).await?;
    Ok(changed)
}

async fn resolve_in_pagerduty(
    store: &Store,
    workspace: WorkspaceId,
    paged: &[crate::guard::store::PagedAlert],
    now_ms: i64,
) -> Result<(), StoreError> {
    for alert in paged {
        let (id, body) = (new_message_id(), resolve_event(alert.alert));
        let row = OutboxRow { schedule: alert.schedule, alert: Some(alert.alert), id: &id, body: &body };
        let to = Recipient { url: &alert.url, receiver: Receiver::PagerDuty };
        store.queue_webhook(workspace, to, row, now_ms).await?;
    }
    Ok(())
}
