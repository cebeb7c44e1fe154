//! Spec Lab: probing a stored connector's server (engine, metrics, speculative decoding), and A/B tests of two
//! connectors. Keys and headers go with the requests, server-side; no reply holds any of them.

use leptos::prelude::*;

use crate::error::AppError;
use crate::lab::model::{AbTestInput, AbTestSummary};
use crate::lab::report::AbTestView;
use crate::model::{AbTestId, Checked, ConnectorId, ProbeReport};
use crate::wire::{JobPage, Json};

#[cfg(feature = "ssr")]
use crate::api::context::with_session;

/// `POST /api/speclab/probe`, `{"id"}`: probes the server behind the connector.
#[server(prefix = "/api", endpoint = "speclab/probe", input = Json, output = Json)]
pub async fn probe_connector(id: ConnectorId) -> Result<ProbeReport, AppError> {
    with_session(|state, session| async move {
        let (_, target) =
            crate::targets::open_target(&state.store, &state.sealer, state.http.addresses(), session.workspace_id, id)
                .await?;
        let report = crate::probe::probe(&state.http, &target).await;
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
        let (summary, plan, report) = state.store.job_record(session.workspace_id, id).await?;
        Ok(AbTestView { summary, plan, report })
    })
    .await
}

/// `POST /api/speclab/ab/page`, `{"id"}`: the test's page as the browser shows it (`speclab/ab/get` has the same
/// as data).
#[server(prefix = "/api", endpoint = "speclab/ab/page", input = Json, output = Json)]
pub async fn get_ab_test_page(id: AbTestId) -> Result<JobPage<AbTestSummary>, AppError> {
    Ok(crate::lab::fragments::ab_page(get_ab_test(id).await?))
}

/// `POST /api/speclab/ab/list`: the workspace's tests, newest first.
#[server(prefix = "/api", endpoint = "speclab/ab/list", input = Json, output = Json)]
pub async fn list_ab_tests() -> Result<Vec<AbTestSummary>, AppError> {
    with_session(|state, session| async move { Ok(state.store.list_jobs::<AbTestId>(session.workspace_id).await?) })
        .await
}

/// `POST /api/speclab/ab/cancel`, `{"id"}`: stops a running test (what it measured is kept); `false` when it
/// was not running.
#[server(prefix = "/api", endpoint = "speclab/ab/cancel", input = Json, output = Json)]
pub async fn cancel_ab_test(id: AbTestId) -> Result<bool, AppError> {
    with_session(|state, session| async move {
        Ok(crate::jobs::JobOwner::cancel(&state.ab_tests, session.workspace_id, id).await?)
    })
    .await
}
