//! Wallet login's two routes, usable by the login page and by any other client: `POST /auth/siwe/nonce` (a fresh
//! nonce with what the message must say) and `POST /auth/siwe/verify` with `{"message", "signature"}` (200, the
//! session cookie and the address; or 401 with a short reason, also logged).

use axum::body::{to_bytes, Body};
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::json;

use super::login::{session_cookie, with_cookie};
use crate::auth::{end_session, issue_siwe_nonce, login_with_wallet, siwe_policy, WalletLoginError, MAX_MESSAGE_BYTES};
use crate::server::middleware::session_token;
use crate::state::AppState;

/// The largest body `verify` reads: a message at its limit, a signature and the JSON around them.
const MAX_VERIFY_BODY: usize = MAX_MESSAGE_BYTES + 1_024;

/// The wallet-login routes.
pub fn wallet_login_routes() -> Router<AppState> {
    Router::new().route("/auth/siwe/nonce", post(nonce)).route("/auth/siwe/verify", post(verify))
}

async fn nonce(State(state): State<AppState>) -> Response {
    match issue_siwe_nonce(&state.store, &policy(&state), state.clock.now_ms()).await {
        Ok(grant) => Json(grant).into_response(),
        Err(e) => {
            tracing::error!(error = %e, "issuing a wallet-login nonce failed");
            StatusCode::INTERNAL_SERVER_ERROR.into_response()
        }
    }
}

/// The wallet-login policy of this server's settings.
fn policy(state: &AppState) -> crate::auth::SiwePolicy {
    siwe_policy(&state.settings.public_base(), &state.settings.siwe_chain_ids)
}

#[derive(Deserialize)]
struct SignedMessage {
    message: String,
    signature: String,
}

fn refused(reason: &str) -> Response {
    tracing::warn!(reason, "wallet login refused");
    (StatusCode::UNAUTHORIZED, Json(json!({ "error": reason }))).into_response()
}

async fn verify(State(state): State<AppState>, headers: HeaderMap, body: Body) -> Response {
    let Ok(bytes) = to_bytes(body, MAX_VERIFY_BODY).await else {
        return refused(&format!("the request body is larger than {MAX_VERIFY_BODY} bytes"));
    };
    let signed: SignedMessage = match serde_json::from_slice(&bytes) {
        Ok(signed) => signed,
        Err(e) => return refused(&format!("the body is not {{\"message\", \"signature\"}} JSON: {e}")),
    };
    let (now, ttl) = (state.clock.now_ms(), state.settings.session_ttl);
    let policy = policy(&state);
    let pair = (signed.message.as_str(), signed.signature.as_str());
    let login = match login_with_wallet(&state.store, &state.tokens, &policy, pair, now, ttl).await {
        Ok(login) => login,
        Err(WalletLoginError::Store(e)) => {
            tracing::error!(error = %e, "a wallet login failed on the database");
            return StatusCode::INTERNAL_SERVER_ERROR.into_response();
        }
        Err(refusal) => return refused(&refusal.to_string()),
    };
    // A session cookie the browser still held ends here: the login's new token replaces it.
    if let Some(old) = session_token(&headers) {
        if let Err(e) = end_session(&state.store, &state.tokens, old).await {
            tracing::warn!(error = %e, "ending the session a wallet login replaced failed");
        }
    }
    tracing::info!(workspace = %login.session.workspace_id, address = %login.address, "logged in with a wallet");
    let cookie = session_cookie(login.session.token.as_str(), ttl, state.settings.secure_cookies);
    let reply = Json(json!({ "address": login.address, "workspaceId": login.session.workspace_id }));
    with_cookie(reply.into_response(), &cookie)
}
