//! `POST /api/datasets/upload?name=FILE`: a dataset file as the request's body, read within 16 MiB, checked row by
//! row and kept in the caller's workspace, where a workload can name it. Answers the dataset as listed, or 400 /
//! 413 with `{"error": "…"}` saying what is wrong (a bad row by its number); a refused upload stores nothing.

use axum::body::Body;
use axum::extract::rejection::QueryRejection;
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
    query: Result<Query<UploadQuery>, QueryRejection>,
    body: Body,
) -> Response {
    let Ok(Query(query)) = query else {
        let reason = "name the file in the address: ?name=FILE.jsonl (its extension, .jsonl, .json or .csv, says the \
                      format)";
        return refused(StatusCode::BAD_REQUEST, reason);
    };
    let bytes = match read_body(body).await {
        Ok(bytes) => bytes,
        Err(refusal) => return refusal,
    };
    let workspace = session.workspace_id;
    match state.store.list_datasets(workspace).await {
        Ok(kept) if kept.len() >= MAX_DATASETS => {
            let reason = format!("a workspace keeps at most {MAX_DATASETS} datasets: delete one first");
            return refused(StatusCode::BAD_REQUEST, reason);
        }
        Ok(_) => {}
        Err(e) => return internal(&e),
    }
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

/// The request's body, read chunk by chunk until one byte over the limit at most (enough to know a file is too large
/// without reading the rest); a body that breaks off is said to have, not called too large.
async fn read_body(body: Body) -> Result<Vec<u8>, Response> {
    use futures::StreamExt;
    let mut chunks = body.into_data_stream();
    let mut bytes = Vec::new();
    while let Some(chunk) = chunks.next().await {
        let chunk = chunk.map_err(|e| refused(StatusCode::BAD_REQUEST, format!("the upload broke off: {e}")))?;
        if bytes.len() + chunk.len() > MAX_DATASET_BYTES {
            return Err(refused(StatusCode::PAYLOAD_TOO_LARGE, UploadError::TooLarge));
        }
        bytes.extend_from_slice(&chunk);
    }
    Ok(bytes)
}

fn internal(e: &dyn std::fmt::Display) -> Response {
    tracing::error!(error = %e, "storing an uploaded dataset failed");
    refused(StatusCode::INTERNAL_SERVER_ERROR, "the dataset could not be stored; see the server log")
}
