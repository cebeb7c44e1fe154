//! `POST /api/datasets/upload?name=FILE`: a dataset file as the request's body, read within 16 MiB, checked row by
//! row and kept in the caller's workspace, where a workload can name it. Answers the dataset as listed, or 400 /
//! 413 with `{"error": "…"}` saying what is wrong (a bad row by its number); a refused upload stores nothing.

use axum::body::Body;
use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use serde_json::json;

use crate::auth::Session;
use crate::model::{MAX_DATASETS, MAX_DATASET_BYTES};
use crate::state::AppState;
use crate::store::NewDataset;
use crate::workload::{read_upload, UploadError};

/// `?name=`: the file's name, whose extension says its format.
#[derive(Debug, serde::Deserialize)]
pub struct UploadQuery {
    name: String,
}

fn refused(status: StatusCode, reason: impl std::fmt::Display) -> Response {
    (status, Json(json!({ "error": reason.to_string() }))).into_response()
}

/// The handler.
pub async fn dataset_upload(
    State(state): State<AppState>,
    Extension(session): Extension<Session>,
    Query(query): Query<UploadQuery>,
    body: Body,
) -> Response {
    // One byte over the limit is enough to know the file is too large, without reading the rest.
    let Ok(bytes) = axum::body::to_bytes(body, MAX_DATASET_BYTES + 1).await else {
        return refused(StatusCode::PAYLOAD_TOO_LARGE, UploadError::TooLarge);
    };
    if bytes.len() > MAX_DATASET_BYTES {
        return refused(StatusCode::PAYLOAD_TOO_LARGE, UploadError::TooLarge);
    }
    let workspace = session.workspace_id;
    match state.store.list_datasets(workspace).await {
        Ok(kept) if kept.len() >= MAX_DATASETS => {
            let reason = format!("a workspace keeps at most {MAX_DATASETS} datasets: delete one first");
            return refused(StatusCode::BAD_REQUEST, reason);
        }
        Ok(_) => {}
        Err(e) => return internal(&e),
    }
    // Reading every row and estimating its length is CPU work: off the async threads.
    let read = tokio::task::spawn_blocking(move || {
        read_upload(&query.name, &bytes).map(|(text, read)| (text.to_string(), read))
    })
    .await;
    let (text, read) = match read {
        Ok(Ok(found)) => found,
        Ok(Err(e)) => return refused(StatusCode::BAD_REQUEST, e),
        Err(e) => return internal(&e),
    };
    let dataset = NewDataset {
        name: &read.name,
        format: read.format,
        rows: read.rows,
        prompt_tokens: read.prompt_tokens,
        output_tokens: read.output_tokens,
        content: &text,
    };
    match state.store.create_dataset(workspace, dataset, state.clock.now_ms()).await {
        Ok(stored) => Json(stored).into_response(),
        Err(e) => internal(&e),
    }
}

fn internal(e: &dyn std::fmt::Display) -> Response {
    tracing::error!(error = %e, "storing an uploaded dataset failed");
    refused(StatusCode::INTERNAL_SERVER_ERROR, "the dataset could not be stored; see the server log")
}
