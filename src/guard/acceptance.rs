//! A run's speculative-decoding acceptance rate, as its server's own counters moved over the run (recorded for a
//! connector a Spec Lab probe identified): what the tick judges and a pin keeps.

use crate::model::{RunId, SpecOutcome, WorkspaceId};
use crate::store::Store;

/// Δaccepted / Δdrafted tokens over run `run`; `None` when nothing was recorded, nothing was drafted, or the window
/// says nothing (a server restart, a missing last reading).
pub(super) async fn run_acceptance_rate(store: &Store, workspace: WorkspaceId, run: RunId) -> Option<f64> {
    let metrics = match store.run_server_metrics(workspace, run).await {
        Ok(metrics) => metrics?,
        Err(e) => {
            tracing::warn!(%run, error = %e, "reading the run's server metrics failed: no acceptance rate");
            return None;
        }
    };
    match metrics.spec {
        SpecOutcome::Window(window) => window.acceptance_rate,
        SpecOutcome::Restarted { .. } | SpecOutcome::NotCounted | SpecOutcome::Unfinished { .. } => None,
    }
}
