//! The public routes a share link opens, read without a session and authorised by the header `x-share-token`:
//! - `GET /api/public/reports/{id}`: the report snapshot and summary;
//! - `GET /api/public/reports/{id}/export`: the snapshot in its compact, versioned form (what exports are made from);
//! - `GET /api/public/reports/{id}/view`: the page's view of it (charts reduced, the table's first page);
//! - `GET /api/public/reports/{id}/page`: what the share page shows: its parts rendered to HTML, the table's first page;
//! - `GET /api/public/reports/{id}/iterations?sort=&descending=&errorsOnly=&page=&pageSize=`: a table page;
//! - `GET /api/public/reports/{id}/table?…`: the same page with its rows drawn as the share page shows them.
//!
//! Any failure to authorise — no header, malformed id, no share, wrong or revoked token — is the same bare 404,
//! so a guess learns nothing (`auth::open_shared_report` checks the token).

use std::future::Future;

use axum::extract::rejection::QueryRejection;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Serialize;

use crate::auth::open_shared_report;
use crate::model::{RunId, WorkspaceId, SHARE_TOKEN_HEADER};
use crate::runs::fragments::report_file_sections;
use crate::runs::report::{SharedReport, TableQuery};
use crate::state::AppState;
use crate::store::StoreError;

/// `GET /api/public/reports/{id}`.
pub async fn shared_report(State(state): State<AppState>, Path(id): Path<String>, headers: HeaderMap) -> Response {
    respond(async {
        let Some((workspace, id)) = authorise(&state, &id, &headers).await? else { return Ok(None) };
        let (_, snapshot, summary) = state.store.run_report(workspace, id).await?;
        Ok(Some(SharedReport { snapshot, summary }))
    })
    .await
}

/// `GET /api/public/reports/{id}/export`.
pub async fn shared_export(State(state): State<AppState>, Path(id): Path<String>, headers: HeaderMap) -> Response {
    respond(async {
        let Some((workspace, id)) = authorise(&state, &id, &headers).await? else { return Ok(None) };
        Ok(Some(state.export_snapshots.export(&state.store, workspace, id, report_file_sections).await?))
    })
    .await
}

/// `GET /api/public/reports/{id}/view`.
pub async fn shared_report_view(State(state): State<AppState>, Path(id): Path<String>, headers: HeaderMap) -> Response {
    respond(async {
        let Some((workspace, id)) = authorise(&state, &id, &headers).await? else { return Ok(None) };
        let (_, view) = state.report_views.view(&state.store, workspace, id).await?;
        Ok(Some(view))
    })
    .await
}

/// `GET /api/public/reports/{id}/page`.
pub async fn shared_report_page(State(state): State<AppState>, Path(id): Path<String>, headers: HeaderMap) -> Response {
    respond(async {
        let Some((workspace, id)) = authorise(&state, &id, &headers).await? else { return Ok(None) };
        let (_, view) = state.report_views.view(&state.store, workspace, id).await?;
        Ok(Some(crate::runs::fragments::shared_page(&view)))
    })
    .await
}

/// `GET /api/public/reports/{id}/iterations`. A malformed query, once the token is good, is a 400 saying why.
pub async fn shared_iterations(
    State(state): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
    query: Result<Query<TableQuery>, QueryRejection>,
) -> Response {
    match authorised_query(&state, &id, &headers, query).await {
        Ok((workspace, id, query)) => {
            respond(async { state.store.iteration_page(workspace, id, &query).await.map(Some) }).await
        }
        Err(refused) => refused,
    }
}

/// `GET /api/public/reports/{id}/table?…`: the same page as `…/iterations`, its rows drawn as the report page shows
/// them.
pub async fn shared_table(
    State(state): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
    query: Result<Query<TableQuery>, QueryRejection>,
) -> Response {
    match authorised_query(&state, &id, &headers, query).await {
        Ok((workspace, id, query)) => {
            respond(async {
                let page = state.store.iteration_page(workspace, id, &query).await?;
                Ok(Some(crate::runs::fragments::table_page(&page)))
            })
            .await
        }
        Err(refused) => refused,
    }
}

/// The run a table request's token opens and its query; else the answer: the bare 404 of a refused token, or a
/// 400 saying why the query is malformed (only once the token is good).
async fn authorised_query(
    state: &AppState,
    id: &str,
    headers: &HeaderMap,
    query: Result<Query<TableQuery>, QueryRejection>,
) -> Result<(WorkspaceId, RunId, TableQuery), Response> {
    let (workspace, id) = match authorise(state, id, headers).await {
        Ok(Some(found)) => found,
        other => return Err(respond(async { other.map(|_| None::<()>) }).await),
    };
    match query {
        Ok(Query(query)) => Ok((workspace, id, query)),
        Err(rejection) => Err((StatusCode::BAD_REQUEST, rejection.body_text()).into_response()),
    }
}

/// The workspace and run the request's share token opens, or `None` for anything wrong with the request.
async fn authorise(
    state: &AppState,
    id: &str,
    headers: &HeaderMap,
) -> Result<Option<(WorkspaceId, RunId)>, StoreError> {
    let token = headers.get(SHARE_TOKEN_HEADER).and_then(|v| v.to_str().ok());
    open_shared_report(&state.store, &state.tokens, id, token).await
}

/// JSON for a value, a bare 404 for nothing or a vanished run, a logged 500 for a store failure.
async fn respond<T: Serialize>(work: impl Future<Output = Result<Option<T>, StoreError>>) -> Response {
    match work.await {
        Ok(Some(value)) => Json(value).into_response(),
        Ok(None) | Err(StoreError::NotFound) => StatusCode::NOT_FOUND.into_response(),
        Err(e) => {
            tracing::error!(error = %e, "reading a shared report failed");
            StatusCode::INTERNAL_SERVER_ERROR.into_response()
        }
    }
}
