//! `GET /api/public/reports/{id}` with the header `x-share-token`: the one report a share link opens, read
//! without a session. Any failure — no header, malformed id, no share, wrong or revoked token — is the same
//! bare 404, so a guess learns nothing. The token is compared as a keyed hash in constant time and never logged.

use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use subtle::ConstantTimeEq;

use crate::model::RunId;
use crate::report::{snapshot, SharedReport};
use crate::server::AppState;
use crate::store::StoreError;

use crate::model::SHARE_TOKEN_HEADER;

/// The handler.
pub async fn shared_report(State(state): State<AppState>, Path(id): Path<String>, headers: HeaderMap) -> Response {
    match read(&state, &id, &headers).await {
        Ok(Some(report)) => Json(report).into_response(),
        Ok(None) | Err(StoreError::NotFound) => StatusCode::NOT_FOUND.into_response(),
        Err(e) => {
            tracing::error!(error = %e, "reading a shared report failed");
            StatusCode::INTERNAL_SERVER_ERROR.into_response()
        }
    }
}

async fn read(state: &AppState, id: &str, headers: &HeaderMap) -> Result<Option<SharedReport>, StoreError> {
    let Some(token) = headers.get(SHARE_TOKEN_HEADER).and_then(|v| v.to_str().ok()).filter(|t| !t.is_empty()) else {
        return Ok(None);
    };
    let Ok(id) = id.parse::<RunId>() else { return Ok(None) };
    let Some(share) = state.store.share_of(id).await? else { return Ok(None) };
    let presented = state.tokens.hash(token);
    if !bool::from(presented.as_bytes().ct_eq(share.token_hash.as_bytes())) {
        return Ok(None);
    }
    let run = state.store.get_run(share.workspace_id, id).await?;
    let records = state.store.run_iterations(share.workspace_id, id).await?;
    let (snapshot, summary) = snapshot(&run, records);
    Ok(Some(SharedReport { snapshot, summary }))
}
