//! Comparing two runs of the workspace.

use leptos::prelude::*;

use crate::error::AppError;
use crate::model::RunId;
use crate::report::Comparison;
use crate::wire::Json;

#[cfg(feature = "ssr")]
use super::context::with_session;

/// `POST /api/runs/compare`, `{"baseline", "candidate"}`: both reports side by side, what makes them hard to
/// compare, and Welch's and Mann-Whitney's tests on total time and TTFT.
#[server(prefix = "/api", endpoint = "runs/compare", input = Json, output = Json)]
pub async fn compare_runs(baseline: RunId, candidate: RunId) -> Result<Comparison, AppError> {
    with_session(|state, session| async move {
        let load = |id| state.store.run_with_iterations(session.workspace_id, id);
        let ((a_run, a_records), (b_run, b_records)) = (load(baseline).await?, load(candidate).await?);
        Ok(crate::report::compare((&a_run, a_records), (&b_run, b_records)))
    })
    .await
}
