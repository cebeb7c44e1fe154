//! Benchmark runs: start, list, read (with the report snapshot), cancel. Live progress is the SSE route
//! `GET /api/runs/{id}/events`.

pub mod benchmark;
pub mod compare;

use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use crate::error::AppError;
use crate::model::{Checked, RunId, RunPlanInput, RunProgress, RunStatus, RunView};
use crate::runs::report::{
    CompactExport, IterationPage, ReportPage, ReportSnapshot, ReportView, RunListing, TablePage, TableQuery,
};
use crate::stats::RunSummary;
use crate::wire::Json;

#[cfg(feature = "ssr")]
use crate::api::context::with_session;

/// A run with its report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunReport {
    /// The run.
    pub run: RunView,
    /// Error rate, cost, sample size and latency from the intended send, beside the snapshot's `stats`.
    pub summary: RunSummary,
    /// The report snapshot (`report, agent, connector, stats, results, honesty`).
    pub snapshot: ReportSnapshot,
    /// Since when a share link opens it (unix ms), if one does.
    pub shared_since_ms: Option<i64>,
}

/// A run with the page's view of its report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunReportView {
    /// The run.
    pub run: RunView,
    /// The report as the page shows it.
    pub view: ReportView,
    /// Since when a share link opens it (unix ms), if one does.
    pub shared_since_ms: Option<i64>,
}

/// `POST /api/runs/start`, `{"input": RunPlanInput}`: validates the plan and starts the run.
#[server(prefix = "/api", endpoint = "runs/start", input = Json, output = Json)]
pub async fn start_run(input: Checked<RunPlanInput>) -> Result<RunView, AppError> {
    with_session(|state, session| async move { Ok(state.runs.start(session.workspace_id, input.0).await?) }).await
}

/// `POST /api/runs/begin`, `{"input": RunPlanInput}`: what `runs/start` does, answering only the new run's id (what
/// the new-run form needs to open its report).
#[server(prefix = "/api", endpoint = "runs/begin", input = Json, output = Json)]
pub async fn begin_run(input: Checked<RunPlanInput>) -> Result<RunId, AppError> {
    with_session(|state, session| async move { Ok(state.runs.start(session.workspace_id, input.0).await?.id) }).await
}

/// `POST /api/runs/list`, `{}`: the workspace's runs, newest first.
#[server(prefix = "/api", endpoint = "runs/list", input = Json, output = Json)]
pub async fn list_runs() -> Result<Vec<RunView>, AppError> {
    with_session(|state, session| async move { Ok(state.store.list_runs(session.workspace_id).await?) }).await
}

/// `POST /api/runs/listing`, `{}`: the workspace's runs as the runs page lists them, newest first — each with its
/// connector's name and its headline figures in words (`runs/list` has every run's plan, for scripts).
#[server(prefix = "/api", endpoint = "runs/listing", input = Json, output = Json)]
pub async fn list_run_listings() -> Result<Vec<RunListing>, AppError> {
    with_session(|state, session| async move {
        let names: std::collections::HashMap<_, _> =
            state.store.list_connectors(session.workspace_id).await?.into_iter().map(|c| (c.id, c.name)).collect();
        let runs = state.store.list_runs(session.workspace_id).await?;
        Ok(runs.iter().map(|run| RunListing::of(run, names.get(&run.plan.connector_id).map(String::as_str))).collect())
    })
    .await
}

/// `POST /api/runs/report`, `{"id"}`: the run, its summary and its report snapshot (so far, while it runs).
#[server(prefix = "/api", endpoint = "runs/report", input = Json, output = Json)]
pub async fn get_run_report(id: RunId) -> Result<RunReport, AppError> {
    with_session(|state, session| async move { load_report(&state.store, session.workspace_id, id).await }).await
}

/// `POST /api/runs/export`, `{"id"}`: the report snapshot in its compact, versioned form (the iterations as
/// columns), which the export buttons read: a third of the bytes of `runs/report` to write, compress and parse.
#[server(prefix = "/api", endpoint = "runs/export", input = Json, output = Json)]
pub async fn get_run_export(id: RunId) -> Result<CompactExport, AppError> {
    with_session(|state, session| async move {
        Ok(state
            .export_snapshots
            .export(&state.store, session.workspace_id, id, crate::runs::fragments::report_file_sections)
            .await?)
    })
    .await
}

/// The run `id` of `workspace` with its report, built from every stored iteration.
#[cfg(feature = "ssr")]
async fn load_report(
    store: &crate::store::Store,
    workspace: crate::model::WorkspaceId,
    id: RunId,
) -> Result<RunReport, AppError> {
    let (run, snapshot, summary) = store.run_report(workspace, id).await?;
    let shared_since_ms = store.shared_since(workspace, id).await?;
    Ok(RunReport { run, summary, snapshot, shared_since_ms })
}

/// `POST /api/runs/view`, `{"id"}`: what the report page shows — the run, the report without its iterations,
/// the charts reduced and the table's first page; the same size whatever the run's length.
#[server(prefix = "/api", endpoint = "runs/view", input = Json, output = Json)]
pub async fn get_run_view(id: RunId) -> Result<RunReportView, AppError> {
    with_session(|state, session| async move {
        let (run, view) = state.report_views.view(&state.store, session.workspace_id, id).await?;
        let shared_since_ms = state.store.shared_since(session.workspace_id, id).await?;
        Ok(RunReportView { view, run, shared_since_ms })
    })
    .await
}

/// The run page: the report's parts the server renders, and what the page's live parts read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunPage {
    /// Running, or how it ended.
    pub status: RunStatus,
    /// The progress as stored, shown until (and unless) the page follows the run live.
    pub progress: RunProgress,
    /// Since when a share link opens it (unix ms), if one does.
    pub shared_since_ms: Option<i64>,
    /// The report.
    pub report: ReportPage,
}

/// `POST /api/runs/page`, `{"id"}`: the run page as the browser shows it — the report's header, scatter,
/// figures, notes and charts as HTML the server rendered (`runs/view` has the same as data), the stored
/// progress and the table's first page.
#[server(prefix = "/api", endpoint = "runs/page", input = Json, output = Json)]
pub async fn get_run_page(id: RunId) -> Result<RunPage, AppError> {
    with_session(|state, session| async move {
        let (run, view) = state.report_views.view(&state.store, session.workspace_id, id).await?;
        let shared_since_ms = state.store.shared_since(session.workspace_id, id).await?;
        let elapsed_ms = run.finished_at_ms.map_or(0, |end| u64::try_from(end - run.created_at_ms).unwrap_or(0));
        let progress =
            RunProgress::new(run.status, run.total_requests, view.iterations as u64, view.failures as u64, elapsed_ms)
                .limited(run.plan.duration_ms);
        Ok(RunPage {
            status: run.status,
            progress,
            shared_since_ms,
            report: crate::runs::fragments::run_page(&run, &view),
        })
    })
    .await
}

/// `POST /api/runs/scatter`, `{"id"}`: the run's latency scatter as the server draws it (SVG, the same chart and
/// sampling as the report's) from the iterations stored so far. The page of a running run reads it again as the
/// run goes, so that the browser never draws a chart nor gathers every point.
#[server(prefix = "/api", endpoint = "runs/scatter", input = Json, output = Json)]
pub async fn get_run_scatter(id: RunId) -> Result<crate::wire::ServerHtml, AppError> {
    with_session(|state, session| async move {
        let records = state.store.run_iterations(session.workspace_id, id).await?;
        Ok(crate::runs::fragments::live_scatter(&records))
    })
    .await
}

/// `POST /api/runs/iterations`, `{"id", "query": {"sort", "descending", "errorsOnly", "page", "pageSize"}}`: one
/// page of the report's iteration table, sorted and filtered by the database.
#[server(prefix = "/api", endpoint = "runs/iterations", input = Json, output = Json)]
pub async fn get_iteration_page(id: RunId, query: TableQuery) -> Result<IterationPage, AppError> {
    with_session(
        |state, session| async move { Ok(state.store.iteration_page(session.workspace_id, id, &query).await?) },
    )
    .await
}

/// `POST /api/runs/table`, `{"id", "query"}`: the same page as `runs/iterations`, as the report page shows it —
/// its rows drawn by the server.
#[server(prefix = "/api", endpoint = "runs/table", input = Json, output = Json)]
pub async fn get_table_page(id: RunId, query: TableQuery) -> Result<TablePage, AppError> {
    with_session(|state, session| async move {
        let page = state.store.iteration_page(session.workspace_id, id, &query).await?;
        Ok(crate::runs::fragments::table_page(&page))
    })
    .await
}

/// `POST /api/runs/cancel`, `{"id"}`: stops a running run; finished iterations are kept. `false` when it was
/// not running.
#[server(prefix = "/api", endpoint = "runs/cancel", input = Json, output = Json)]
pub async fn cancel_run(id: RunId) -> Result<bool, AppError> {
    with_session(|state, session| async move {
        state.store.get_run(session.workspace_id, id).await?;
        Ok(crate::jobs::JobOwner::cancel(&state.runs, session.workspace_id, id).await?)
    })
    .await
}

/// `POST /api/runs/rename`, `{"id", "title"}`: renames a report (1 to 200 characters).
#[server(prefix = "/api", endpoint = "runs/rename", input = Json, output = Json)]
pub async fn rename_run(id: RunId, title: String) -> Result<(), AppError> {
    with_session(|state, session| async move {
        let title = crate::model::display_name(&title, "title", crate::model::limits::MAX_TITLE_CHARS)
            .map_err(AppError::Invalid)?;
        Ok(state.store.rename_run(session.workspace_id, id, &title).await?)
    })
    .await
}

/// `POST /api/runs/delete`, `{"id"}`: deletes a finished run, its iterations and its share link. A running run
/// is refused (cancel it first).
#[server(prefix = "/api", endpoint = "runs/delete", input = Json, output = Json)]
pub async fn delete_run(id: RunId) -> Result<(), AppError> {
    with_session(|state, session| async move {
        if state.store.delete_run(session.workspace_id, id).await? {
            Ok(())
        } else {
            Err(AppError::Invalid(crate::model::ValidationError::new(
                "id",
                "the run is still running: cancel it first",
            )))
        }
    })
    .await
}
