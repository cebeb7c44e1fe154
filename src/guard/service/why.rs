//! What a breaching evaluation's alert says of why: reads what answered its run and its baseline's run (their
//! replies' fingerprints, cached tokens and the servers' own metrics) and hands them to the pure rule
//! (`judge::alert_context`). Read only when an evaluation breached: a healthy one has nothing to explain.

use crate::guard::judge::{alert_context, answered_of};
use crate::guard::model::{AlertContext, Answered};
use crate::model::{IterationRecord, RunId, RunValidity, RunView, WorkspaceId};
use crate::store::{Store, StoreError};

/// Why `run` (its iterations `records`, its verdict `validity`) may have breached against the run `baseline`
/// stood for (`baseline_records` when they were read already).
pub(super) async fn why_it_breached(
    store: &Store,
    workspace: WorkspaceId,
    run: &RunView,
    records: &[IterationRecord],
    validity: &RunValidity,
    baseline: (RunId, Option<&[IterationRecord]>),
) -> AlertContext {
    let observed = answered(store, workspace, run, records).await;
    let reference = match reference(store, workspace, baseline).await {
        Ok(reference) => reference,
        Err(e) => {
            // An alert without what changed still carries its figures, verdict and slowest requests.
            tracing::warn!(run = %baseline.0, error = %e, "reading the baseline's run for the alert failed");
            Answered::default()
        }
    };
    alert_context(&reference, &observed, validity, records)
}

async fn reference(
    store: &Store,
    workspace: WorkspaceId,
    (id, records): (RunId, Option<&[IterationRecord]>),
) -> Result<Answered, StoreError> {
    let run = store.get_run(workspace, id).await?;
    let read;
    let records = match records {
        Some(records) => records,
        None => {
            read = store.run_iterations(workspace, id).await?;
            &read
        }
    };
    Ok(answered(store, workspace, &run, records).await)
}

async fn answered(store: &Store, workspace: WorkspaceId, run: &RunView, records: &[IterationRecord]) -> Answered {
    let server = store.run_server_metrics(workspace, run.id).await.unwrap_or_else(|e| {
        tracing::warn!(run = %run.id, error = %e, "reading the run's server metrics failed: the alert names no server figure");
        None
    });
    answered_of(run, records, server.as_ref())
}
