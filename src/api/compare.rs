//! Comparing two runs of the workspace.

use leptos::prelude::*;
use leptos::server_fn::codec::Json;

use crate::error::AppError;
use crate::model::RunId;
use crate::report::Comparison;

#[cfg(feature = "ssr")]
use super::context::with_session;

/// `POST /api/runs/compare`, `{"baseline", "candidate"}`: both reports side by side, what makes them hard to
/// compare, and Welch's and Mann-Whitney's tests on total time and TTFT.
#[server(prefix = "/api", endpoint = "runs/compare", input = Json)]
pub async fn compare_runs(baseline: RunId, candidate: RunId) -> Result<Comparison, AppError> {
    with_session(|state, session| async move {
        let (store, workspace) = (&state.store, session.workspace_id);
        let load = |id: RunId| async move {
            let run = store.get_run(workspace, id).await?;
            let records = store.run_iterations(workspace, id).await?;
            Ok::<_, AppError>((run, records))
        };
        let (baseline_run, baseline_records) = load(baseline).await?;
        let (candidate_run, candidate_records) = load(candidate).await?;
        Ok(crate::report::compare((&baseline_run, baseline_records), (&candidate_run, candidate_records)))
    })
    .await
}
