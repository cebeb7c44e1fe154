//! `POST /api/public/hooks/guard-tick`: one tick for an external scheduler (pg_cron, a Kubernetes CronJob),
//! authenticated by the header `apikey` against the `GUARD_TICK_API_KEY` setting, compared in constant time.
//! No key configured: the hook does not exist (404). Missing or wrong key: 401 and nothing runs. A hook tick
//! while another is still running, or beyond the hook's budget (`guard::HookLimit`), gets 429 with
//! `Retry-After`: a scheduler in a loop or a leaked key cannot hammer the database. Otherwise the reply says
//! what ran.

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use std::sync::Arc;

use crate::config::Settings;
use crate::guard::Guard;

/// The handler.
pub async fn guard_tick_hook(
    State(settings): State<Arc<Settings>>,
    State(guard): State<Guard>,
    headers: HeaderMap,
) -> Response {
    let Some(key) = &settings.guard_tick_api_key else {
        return StatusCode::NOT_FOUND.into_response();
    };
    let presented = headers.get("apikey").and_then(|v| v.to_str().ok()).unwrap_or_default();
    if !key.matches(presented) {
        return (StatusCode::UNAUTHORIZED, "missing or wrong apikey header").into_response();
    }
    let _turn = match guard.hook_limit().admit() {
        Ok(turn) => turn,
        Err(refusal) => {
            let retry_after = refusal.retry_after.as_secs().max(1).to_string();
            return (StatusCode::TOO_MANY_REQUESTS, [("retry-after", retry_after)], refusal.reason).into_response();
        }
    };
    match guard.tick().await {
        Ok(report) => Json(report).into_response(),
        Err(e) => {
            tracing::error!(error = %e, "guard tick from the hook failed");
            (StatusCode::INTERNAL_SERVER_ERROR, "the tick failed; see the server log").into_response()
        }
    }
}
