//! Sweeps and capacity searches: a series of runs over load levels against one connector, each level a stored run,
//! the sweep's report (levels, answer, knee, interval) filling in as it goes; a repeated run is a sweep of one level
//! run again and again, and two of them compare by their repetitions.

use leptos::prelude::*;

use crate::capacity::model::{SweepInput, SweepSummary};
use crate::capacity::report::{RepeatedComparison, SweepView};
use crate::error::AppError;
use crate::model::{Checked, SweepId};
use crate::wire::{JobPage, Json};

#[cfg(feature = "ssr")]
use crate::api::context::with_session;

/// `POST /api/sweeps/start`, `{"input": {connectorId, levels, prompts, slos, …}}`: validates and starts a sweep in
/// the background.
#[server(prefix = "/api", endpoint = "sweeps/start", input = Json, output = Json)]
pub async fn start_sweep(input: Checked<SweepInput>) -> Result<SweepSummary, AppError> {
    with_session(|state, session| async move { Ok(state.sweeps.start(session.workspace_id, input.0).await?) }).await
}

/// `POST /api/sweeps/get`, `{"id"}`: a sweep with its plan and its report so far.
#[server(prefix = "/api", endpoint = "sweeps/get", input = Json, output = Json)]
pub async fn get_sweep(id: SweepId) -> Result<SweepView, AppError> {
    with_session(|state, session| async move {
        let (summary, plan, report) = state.store.job_record(session.workspace_id, id).await?;
        Ok(SweepView { summary, plan, report })
    })
    .await
}

/// `POST /api/sweeps/page`, `{"id"}`: the sweep's page as the browser shows it (`sweeps/get` has the same as data).
#[server(prefix = "/api", endpoint = "sweeps/page", input = Json, output = Json)]
pub async fn get_sweep_page(id: SweepId) -> Result<JobPage<SweepSummary>, AppError> {
    Ok(crate::capacity::fragments::sweep_page(get_sweep(id).await?, crate::fragments::ShownIn::Page))
}

/// `POST /api/sweeps/file`, `{"id"}`: the sweep's page as its HTML export shows it (no links into the app), which
/// the browser puts in a file.
#[server(prefix = "/api", endpoint = "sweeps/file", input = Json, output = Json)]
pub async fn get_sweep_file(id: SweepId) -> Result<JobPage<SweepSummary>, AppError> {
    Ok(crate::capacity::fragments::sweep_page(get_sweep(id).await?, crate::fragments::ShownIn::File))
}

/// `POST /api/sweeps/list`: the workspace's sweeps, newest first.
#[server(prefix = "/api", endpoint = "sweeps/list", input = Json, output = Json)]
pub async fn list_sweeps() -> Result<Vec<SweepSummary>, AppError> {
    with_session(|state, session| async move { Ok(state.store.list_jobs::<SweepId>(session.workspace_id).await?) })
        .await
}

/// `POST /api/sweeps/cancel`, `{"id"}`: stops a running sweep (the levels done are kept); `false` when it was not
/// running.
#[server(prefix = "/api", endpoint = "sweeps/cancel", input = Json, output = Json)]
pub async fn cancel_sweep(id: SweepId) -> Result<bool, AppError> {
    with_session(|state, session| async move {
        Ok(crate::jobs::JobOwner::cancel(&state.sweeps, session.workspace_id, id).await?)
    })
    .await
}

/// `POST /api/sweeps/delete`, `{"id"}`: deletes a finished sweep (its levels' runs stay); `false` while it runs.
#[server(prefix = "/api", endpoint = "sweeps/delete", input = Json, output = Json)]
pub async fn delete_sweep(id: SweepId) -> Result<bool, AppError> {
    with_session(|state, session| async move { Ok(state.store.delete_job(session.workspace_id, id).await?) }).await
}

/// `POST /api/sweeps/compare`, `{"a", "b"}`: two repeated runs compared by their repetitions (Welch's t-test over the
/// repetitions' values, b against a); 400 when either is not a repeated run with a repetition done.
#[server(prefix = "/api", endpoint = "sweeps/compare", input = Json, output = Json)]
pub async fn compare_repeated_runs(a: SweepId, b: SweepId) -> Result<RepeatedComparison, AppError> {
    with_session(|state, session| async move {
        let mut reports = Vec::with_capacity(2);
        for (field, id) in [("a", a), ("b", b)] {
            let (summary, _, report) = state.store.job_record(session.workspace_id, id).await?;
            let repeated = report.and_then(|r| r.repeated).ok_or_else(|| {
                AppError::Invalid(crate::model::ValidationError::new(
                    field,
                    format!("“{}” is not a repeated run with a repetition done", summary.title),
                ))
            })?;
            reports.push(repeated);
        }
        Ok(crate::capacity::report::compare_repeated(&reports[0], &reports[1]))
    })
    .await
}
