//! Spec Lab: probing a stored connector's server (engine, metrics, speculative decoding), and A/B tests of two
//! connectors. Keys and headers go with the requests, server-side; no reply holds any of them.

use leptos::prelude::*;

use crate::error::AppError;
use crate::model::{AbTestId, AbTestInput, AbTestSummary, Checked, ConnectorId, ProbeReport};
use crate::report::AbTestView;
use crate::wire::{Json, ServerHtml};

#[cfg(feature = "ssr")]
use super::context::with_session;

/// `POST /api/speclab/probe`, `{"id"}`: probes the server behind the connector.
#[server(prefix = "/api", endpoint = "speclab/probe", input = Json, output = Json)]
pub async fn probe_connector(id: ConnectorId) -> Result<ProbeReport, AppError> {
    with_session(|state, session| async move {
        let (_, target) =
            crate::targets::open_target(&state.store, &state.sealer, state.http.addresses(), session.workspace_id, id)
                .await?;
        let report = crate::speclab::probe(&state.http, &target).await;
        state.store.record_probe(session.workspace_id, id, report.kind, state.clock.now_ms()).await?;
        Ok(report)
    })
    .await
}

/// `POST /api/speclab/ab/start`, `{"input": {baselineConnectorId, candidateConnectorId, plan}}`: validates and
/// starts an A/B test in the background.
#[server(prefix = "/api", endpoint = "speclab/ab/start", input = Json, output = Json)]
pub async fn start_ab_test(input: Checked<AbTestInput>) -> Result<AbTestSummary, AppError> {
    with_session(|state, session| async move { Ok(state.ab_tests.start(session.workspace_id, input.0).await?) }).await
}

/// `POST /api/speclab/ab/get`, `{"id"}`: a test with its progress, plan and (once it ended) report.
#[server(prefix = "/api", endpoint = "speclab/ab/get", input = Json, output = Json)]
pub async fn get_ab_test(id: AbTestId) -> Result<AbTestView, AppError> {
    with_session(|state, session| async move {
        let (summary, plan, report) = state.store.ab_test_report(session.workspace_id, id).await?;
        Ok(AbTestView { summary, plan, report })
    })
    .await
}

/// An A/B test's page: its state, which the page's progress line and Stop button read, and the rest as HTML the
/// server rendered.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AbTestPage {
    /// Status and progress.
    pub summary: AbTestSummary,
    /// Which connectors, cells, prompts and iterations.
    pub header: ServerHtml,
    /// Once it ended: each cell's verdict, bottleneck panel, differences and caveats, and the notes.
    pub report: Option<ServerHtml>,
}

/// `POST /api/speclab/ab/page`, `{"id"}`: the test's page as the browser shows it (`speclab/ab/get` has the same
/// as data).
#[server(prefix = "/api", endpoint = "speclab/ab/page", input = Json, output = Json)]
pub async fn get_ab_test_page(id: AbTestId) -> Result<AbTestPage, AppError> {
    with_session(|state, session| async move {
        let (summary, plan, report) = state.store.ab_test_report(session.workspace_id, id).await?;
        let view = AbTestView { summary, plan, report };
        Ok(AbTestPage {
            header: crate::fragments::ab_header(&view),
            report: view.report.as_ref().map(crate::fragments::ab_report),
            summary: view.summary,
        })
    })
    .await
}

/// `POST /api/speclab/ab/list`: the workspace's tests, newest first.
#[server(prefix = "/api", endpoint = "speclab/ab/list", input = Json, output = Json)]
pub async fn list_ab_tests() -> Result<Vec<AbTestSummary>, AppError> {
    with_session(|state, session| async move { Ok(state.store.list_ab_tests(session.workspace_id).await?) }).await
}

/// `POST /api/speclab/ab/cancel`, `{"id"}`: stops a running test (what it measured is kept); `false` when it
/// was not running.
#[server(prefix = "/api", endpoint = "speclab/ab/cancel", input = Json, output = Json)]
pub async fn cancel_ab_test(id: AbTestId) -> Result<bool, AppError> {
    with_session(|state, session| async move { Ok(state.ab_tests.cancel(session.workspace_id, id).await?) }).await
}
