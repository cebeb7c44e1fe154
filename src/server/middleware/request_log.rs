//! One log line per request: method, path (never the query, which may hold a login token), status, duration.
//! Headers are never logged: they carry keys and cookies.

use axum::extract::Request;
use axum::middleware::Next;
use axum::response::Response;
use std::time::Instant;

/// Logs the request after it completes.
pub async fn log_request(request: Request, next: Next) -> Response {
    let started = Instant::now();
    let method = request.method().clone();
    let path = request.uri().path().to_string();
    let response = next.run(request).await;
    tracing::info!(
        %method,
        path,
        status = response.status().as_u16(),
        ms = format_args!("{:.1}", started.elapsed().as_secs_f64() * 1e3),
        "request"
    );
    response
}
