//! A finished run as Guard keeps it, for the tick to judge and a pin to keep alike: its successful total times and
//! summary (`decide::observe`) with the speculative-decoding acceptance rate its server's own counters moved by
//! over the run (recorded for a connector a Spec Lab probe identified), and a streamed run's per-request times.

use crate::guard::judge::{observe, streamed_samples};
use crate::guard::model::{GuardSummary, StreamedSamples};
use crate::model::{IterationRecord, RunId, SpecOutcome, WorkspaceId};
use crate::store::Store;

/// Run `run`'s successful total times (ascending), its summary with the server's acceptance rate, and its
/// TTFT/TPOT/time-to-first-output samples when it streamed; `records` are its iterations.
pub(super) async fn observe_run(
    store: &Store,
    workspace: WorkspaceId,
    run: RunId,
    records: &[IterationRecord],
) -> (Vec<f64>, GuardSummary, Option<StreamedSamples>) {
    let (total_ms, mut summary) = observe(records);
    summary.acceptance_rate = run_acceptance_rate(store, workspace, run).await;
    (total_ms, summary, streamed_samples(records))
}

/// Δaccepted / Δdrafted tokens over run `run`; `None` when nothing was recorded, nothing was drafted, or the window
/// says nothing (a server restart, a missing last reading).
async fn run_acceptance_rate(store: &Store, workspace: WorkspaceId, run: RunId) -> Option<f64> {
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
