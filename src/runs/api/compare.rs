//! Comparing two runs of the workspace.

use leptos::prelude::*;

use crate::error::AppError;
use crate::model::RunId;
use crate::runs::report::Comparison;
use crate::wire::{Json, ServerHtml};

#[cfg(feature = "ssr")]
use crate::api::context::with_session;

/// `POST /api/runs/compare`, `{"baseline", "candidate"}`: both reports side by side, what makes them hard to
/// compare, and Welch's and Mann-Whitney's tests on total time and TTFT.
#[server(prefix = "/api", endpoint = "runs/compare", input = Json, output = Json)]
pub async fn compare_runs(baseline: RunId, candidate: RunId) -> Result<Comparison, AppError> {
    with_session(|state, session| async move {
        Ok(compare_stored(&state.store, session.workspace_id, baseline, candidate).await?)
    })
    .await
}

/// Both runs of the workspace read with their iterations and compared: `runs/compare` and the compare page.
#[cfg(feature = "ssr")]
async fn compare_stored(
    store: &crate::store::Store,
    workspace: crate::model::WorkspaceId,
    baseline: RunId,
    candidate: RunId,
) -> Result<Comparison, crate::store::StoreError> {
    let ((a_run, a_records), (b_run, b_records)) =
        (store.run_with_iterations(workspace, baseline).await?, store.run_with_iterations(workspace, candidate).await?);
    Ok(crate::runs::report::compare((&a_run, a_records), (&b_run, b_records)))
}

/// The compare page: the run pickers' choices and, when both runs are picked, their comparison, as HTML the
/// server rendered (`runs/compare` has the comparison as data).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ComparePage {
    /// The baseline picker's `<option>`s.
    pub baseline_choices: ServerHtml,
    /// The candidate picker's `<option>`s.
    pub candidate_choices: ServerHtml,
    /// The comparison, once both are picked; why not, when it cannot be made.
    pub comparison: Option<Result<ServerHtml, AppError>>,
}

/// `POST /api/runs/compare_page`, `{"baseline", "candidate"}` (either may be null): the compare page as the
/// browser shows it.
#[server(prefix = "/api", endpoint = "runs/compare_page", input = Json, output = Json)]
pub async fn get_compare_page(baseline: Option<RunId>, candidate: Option<RunId>) -> Result<ComparePage, AppError> {
    with_session(|state, session| async move {
        let runs = state.store.list_runs(session.workspace_id).await?;
        let comparison = match (baseline, candidate) {
            (Some(baseline), Some(candidate)) => Some(
                compare_stored(&state.store, session.workspace_id, baseline, candidate)
                    .await
                    .map(|c| crate::runs::fragments::comparison(&c))
                    .map_err(AppError::from),
            ),
            _ => None,
        };
        Ok(ComparePage {
            baseline_choices: crate::runs::fragments::run_choices(&runs, baseline),
            candidate_choices: crate::runs::fragments::run_choices(&runs, candidate),
            comparison,
        })
    })
    .await
}
