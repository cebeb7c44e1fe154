//! Gives server-function replies that failed before their body ran (undecodable arguments) the status 400 they
//! deserve. Leptos answers those with 500; the reply body is already our `AppError::Request`, naming the field.

use axum::body::{to_bytes, Body};
use axum::extract::Request;
use axum::http::StatusCode;
use axum::middleware::Next;
use axum::response::Response;

use crate::error::AppError;

/// Error replies are small JSON documents; anything larger is left alone.
const MAX_ERROR_BODY: usize = 64 * 1024;

/// Rewrites `500 {"kind":"request",…}` on `/api/` to `400`.
pub async fn undecodable_arguments_are_bad_requests(request: Request, next: Next) -> Response {
    let is_api = request.uri().path().starts_with("/api/");
    let response = next.run(request).await;
    if !is_api || response.status() != StatusCode::INTERNAL_SERVER_ERROR {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    let Ok(bytes) = to_bytes(body, MAX_ERROR_BODY).await else {
        // Never a plain-text reply on the API: the documented JSON error, details in the log only.
        tracing::error!("an API error reply over 64 KiB was replaced by the internal error");
        parts
            .headers
            .insert(axum::http::header::CONTENT_TYPE, axum::http::HeaderValue::from_static("application/json"));
        parts.headers.remove(axum::http::header::CONTENT_LENGTH);
        let internal = serde_json::to_vec(&AppError::Internal).unwrap_or_default();
        return Response::from_parts(parts, Body::from(internal));
    };
    if matches!(serde_json::from_slice::<AppError>(&bytes), Ok(AppError::Request(_))) {
        parts.status = StatusCode::BAD_REQUEST;
    }
    Response::from_parts(parts, Body::from(bytes))
}
