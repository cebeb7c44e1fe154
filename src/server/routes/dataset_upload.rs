//! `POST /api/datasets/upload?name=FILE`: a dataset file as the request's body, read within 16 MiB, checked row by
//! row and kept in the caller's workspace, where a workload can name it. Answers the dataset as listed, or 400 /
//! 413 with `{"error": "…"}` saying what is wrong (a bad row by its number); a refused upload stores nothing and
//! counts against the workspace's budget of refusals (past it, 429 with `Retry-After`). One upload of a workspace
//! is taken at a time; bodies arrive within a time limit and a byte budget across the process, and two are checked
//! at once (`upload_body`).

use axum::body::Body;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use serde_json::json;

use super::upload_body::{take_in, workspace_turn, BodyError, HeldBody};
use crate::auth::Session;
use crate::model::Holding;
use crate::rate_limit::Caller;
use crate::state::AppState;
use crate::store::StoreError;
use crate::workload::service::{read_upload, UploadError, REFUSED_UPLOAD_BUDGET};
use crate::workload::store::NewDataset;

/// `?name=`: the file's name, whose extension says its format.
#[derive(Debug, serde::Deserialize)]
pub struct UploadQuery {
    name: String,
}

fn refused(status: StatusCode, reason: impl std::fmt::Display) -> Response {
    (status, Json(json!({ "error": reason.to_string() }))).into_response()
}

/// Uploads checked and stored at once across the process, their bodies in: each holds about as much again as its
/// body while its rows are read and it is stored, so forty uploads at once wait their turn instead of taking forty
/// times that (`docs/RELIABILITY.md`, `cargo bench --bench workload_memory`). No slot is held while a body
/// arrives: a slow client holds only its own workspace's turn (`upload_body`).
const CHECKED_AT_ONCE: usize = 2;
static CHECKING_SLOTS: tokio::sync::Semaphore = tokio::sync::Semaphore::const_new(CHECKED_AT_ONCE);

/// The handler.
pub async fn dataset_upload(
    State(state): State<AppState>,
    Extension(session): Extension<Session>,
    query: Result<Query<UploadQuery>, QueryRejection>,
    body: Body,
) -> Response {
    let workspace = session.workspace_id;
    // The workspace's turn first, so that its uploads at once see the refusals counted before them.
    let _turn = workspace_turn(workspace).await;
    let refusals = Caller::RefusedUploads(workspace).key();
    match state.store.peek_rate_token(&refusals, REFUSED_UPLOAD_BUDGET, state.clock.now_ms()).await {
        Ok(Ok(())) => {}
        Ok(Err(wait)) => return too_many_refused(wait),
        Err(e) => return internal(&e),
    }
    let refusal = upload(&state, workspace, query, body).await;
    if let Err(refused) = &refusal {
        if refused.status() != StatusCode::INTERNAL_SERVER_ERROR {
            // Each refusal read a file: counted, so a workspace cannot make the server read refused files at will.
            if let Err(e) = state.store.take_rate_token(&refusals, REFUSED_UPLOAD_BUDGET, state.clock.now_ms()).await {
                tracing::warn!(error = %e, "counting a refused upload failed");
            }
        }
    }
    refusal.unwrap_or_else(|refused| refused)
}

/// Reads, checks and stores one upload (in its turn: the caller holds it); the dataset as listed, or the refusal.
async fn upload(
    state: &AppState,
    workspace: crate::model::WorkspaceId,
    query: Result<Query<UploadQuery>, QueryRejection>,
    body: Body,
) -> Result<Response, Response> {
    let Ok(Query(query)) = query else {
        let reason = "name the file in the address: ?name=FILE.jsonl (its extension, .jsonl, .json or .csv, says the \
                      format)";
        return Err(refused(StatusCode::BAD_REQUEST, reason));
    };
    // A full workspace is refused before its file is read; the insert counts again in its own transaction, so
    // uploads at once cannot pass the limit together.
    let held = state.store.count_held(workspace, Holding::Datasets).await.map_err(|e| internal(&e))?;
    Holding::Datasets.admits_one_more(held).map_err(|full| refused(StatusCode::BAD_REQUEST, full.reason))?;
    let body = take_in(body).await.map_err(body_refused)?;
    let Ok(_slot) = CHECKING_SLOTS.acquire().await else {
        return Err(internal(&"the upload slots are closed"));
    };
    let HeldBody { bytes, room: _room } = body;
    // Reading every row and estimating its length is CPU work: off the async threads. The text is kept as the
    // bytes that came (checked UTF-8 by then), not copied.
    let read = tokio::task::spawn_blocking(move || {
        let read = read_upload(&query.name, &bytes)?.1;
        let text =
            String::from_utf8(bytes).map_err(|e| UploadError::NotText { offset: e.utf8_error().valid_up_to() })?;
        Ok::<_, UploadError>((text, read))
    })
    .await;
    let (text, read) = match read {
        Ok(Ok(found)) => found,
        Ok(Err(e)) => return Err(refused(StatusCode::BAD_REQUEST, e)),
        Err(e) => return Err(internal(&e)),
    };
    let dataset = NewDataset {
        name: &read.name,
        format: read.format,
        rows: read.rows,
        skipped: read.skipped,
        prompt_tokens: read.prompt_tokens,
        output_tokens: read.output_tokens,
        content: &text,
    };
    match state.store.create_dataset(workspace, dataset, state.clock.now_ms()).await {
        Ok(stored) => Ok(Json(stored).into_response()),
        Err(StoreError::Invalid(full)) => Err(refused(StatusCode::BAD_REQUEST, full.reason)),
        Err(e) => Err(internal(&e)),
    }
}

/// 429 with `Retry-After`: the workspace's refused uploads are past their budget.
fn too_many_refused(wait: std::time::Duration) -> Response {
    let seconds = wait.as_secs().max(1);
    let reason = format!(
        "this workspace's uploads were refused {} times in a short while: wait {seconds} s before the next one",
        REFUSED_UPLOAD_BUDGET.burst
    );
    let mut response = refused(StatusCode::TOO_MANY_REQUESTS, reason);
    if let Ok(value) = axum::http::HeaderValue::from_str(&seconds.to_string()) {
        response.headers_mut().insert(axum::http::header::RETRY_AFTER, value);
    }
    response
}

/// The refusal for a body that was not taken in: 413 for a file over the limit, 408 for one that stopped or took too
/// long, 400 for one that broke off.
fn body_refused(error: BodyError) -> Response {
    match error {
        BodyError::TooLarge => refused(StatusCode::PAYLOAD_TOO_LARGE, UploadError::TooLarge),
        BodyError::Stalled { .. } | BodyError::TooSlow { .. } => refused(StatusCode::REQUEST_TIMEOUT, error),
        BodyError::BrokeOff(_) => refused(StatusCode::BAD_REQUEST, error),
    }
}

fn internal(e: &dyn std::fmt::Display) -> Response {
    tracing::error!(error = %e, "storing an uploaded dataset failed");
    refused(StatusCode::INTERNAL_SERVER_ERROR, "the dataset could not be stored; see the server log")
}
