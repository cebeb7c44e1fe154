//! `POST /api/public/hooks/guard-tick`: one tick for an external scheduler (pg_cron, a Kubernetes CronJob),
//! authenticated by the header `apikey` against the `GUARD_TICK_API_KEY` setting, compared in constant time.
//! No key configured: the hook does not exist (404). Missing or wrong key: 401 and nothing runs. A hook tick
//! while another is still running, or beyond the hook's budget (`guard::hook_limit`), gets 429 with
//! `Retry-After`: a scheduler in a loop or a leaked key cannot hammer the database. Each client's calls are
//! counted before its key is compared, so keys cannot be guessed at speed. The budgets are counted in the
//! database, shared by replicas. Otherwise the reply says what ran.

use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;

use crate::guard::service::{Refusal, HOOK_BUDGET, HOOK_CLIENT_BUDGET};
use crate::rate_limit::{Budget, Caller};
use crate::server::middleware::client_address;
use crate::state::AppState;

/// The handler.
pub async fn guard_tick_hook(State(state): State<AppState>, request: Request) -> Response {
    let Some(key) = &state.settings.guard_tick_api_key else {
        return StatusCode::NOT_FOUND.into_response();
    };
    let (parts, _) = request.into_parts();
    // Every call counts against its client before the key is compared: a wrong key is no free guess.
    let client = Caller::GuardHookClient(client_address(&parts, &state.settings));
    if let Err(refused) = take(&state, client, HOOK_CLIENT_BUDGET, Refusal::client_too_often).await {
        return refused;
    }
    let presented = parts.headers.get("apikey").and_then(|v| v.to_str().ok()).unwrap_or_default();
    if !key.matches(presented) {
        return (StatusCode::UNAUTHORIZED, "missing or wrong apikey header").into_response();
    }
    let guard = &state.guard;
    let _turn = match guard.hook_limit().start() {
        Ok(turn) => turn,
        Err(refusal) => return too_many(&refusal),
    };
    if let Err(refused) = take(&state, Caller::GuardHook, HOOK_BUDGET, Refusal::too_many).await {
        return refused;
    }
    match guard.tick().await {
        Ok(report) => Json(report).into_response(),
        Err(e) => {
            tracing::error!(error = %e, "guard tick from the hook failed");
            (StatusCode::INTERNAL_SERVER_ERROR, "the tick failed; see the server log").into_response()
        }
    }
}

/// Takes a call from `caller`'s bucket (shared by every replica), or the 429 to answer.
async fn take(
    state: &AppState,
    caller: Caller,
    budget: Budget,
    refusal: fn(std::time::Duration) -> Refusal,
) -> Result<(), Response> {
    match state.store.take_rate_token(&caller.key(), budget, state.clock.now_ms()).await {
        Ok(Ok(())) => Ok(()),
        Ok(Err(wait)) => Err(too_many(&refusal(wait))),
        Err(e) => {
            tracing::error!(error = %e, "counting a guard hook call failed");
            Err((StatusCode::SERVICE_UNAVAILABLE, "the database is not answering; try again later").into_response())
        }
    }
}

fn too_many(refusal: &Refusal) -> Response {
    let retry_after = refusal.retry_after.as_secs().max(1).to_string();
    (StatusCode::TOO_MANY_REQUESTS, [("retry-after", retry_after)], refusal.reason).into_response()
}
