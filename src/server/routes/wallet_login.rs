//! Wallet login's two routes, usable by the login page and by any other client: `POST /auth/siwe/nonce` (a fresh
//! nonce with what the message must say) and `POST /auth/siwe/verify` with `{"message", "signature"}` (200, the
//! session cookie and the address; or 401 with a short reason, also logged; 403 when the signature is good but the
//! operator's `wallet-sign-in` does not let the wallet in). Both count against the client's
//! budget (`auth::WALLET_LOGIN_BUDGET`, counted in the database across replicas): 429 with `Retry-After` beyond it.

use axum::body::to_bytes;
use axum::extract::{Request, State};
use axum::http::{header, request::Parts, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::json;

use super::login::{session_cookie, with_cookie};
use crate::account::service::{
    issue_siwe_nonce, login_with_wallet, siwe_policy, WalletLoginError, MAX_MESSAGE_BYTES, WALLET_LOGIN_BUDGET,
};
use crate::auth::end_session;
use crate::rate_limit::Caller;
use crate::server::middleware::{client_address, session_token};
use crate::state::AppState;

/// The largest body `verify` reads: a message at its limit, a signature and the JSON around them.
const MAX_VERIFY_BODY: usize = MAX_MESSAGE_BYTES + 1_024;

/// The wallet-login routes.
pub fn wallet_login_routes() -> Router<AppState> {
    Router::new().route("/auth/siwe/nonce", post(nonce)).route("/auth/siwe/verify", post(verify))
}

/// 429 when the client has used its budget (counted in the database, across replicas); the wait goes in
/// `Retry-After`.
async fn over_budget(parts: &Parts, state: &AppState) -> Option<Response> {
    let client = client_address(parts, &state.settings);
    let bucket = Caller::WalletLogin(client).key();
    let taken = state.store.take_rate_token(&bucket, WALLET_LOGIN_BUDGET, state.clock.now_ms());
    let wait = match taken.await {
        Ok(granted) => granted.err()?,
        Err(e) => {
            // The login itself needs the database: it will fail and say so.
            tracing::error!(error = %e, "counting a wallet-login request failed");
            return None;
        }
    };
    tracing::warn!(%client, path = %parts.uri.path(), "wallet-login request over the client's budget");
    let seconds = wait.as_secs() + 1;
    let reason = format!("too many wallet-login requests from this address; try again in {seconds} s");
    Some(
        (StatusCode::TOO_MANY_REQUESTS, [(header::RETRY_AFTER, seconds.to_string())], Json(json!({ "error": reason })))
            .into_response(),
    )
}

async fn nonce(State(state): State<AppState>, request: Request) -> Response {
    if let Some(refused) = over_budget(&request.into_parts().0, &state).await {
        return refused;
    }
    match issue_siwe_nonce(&state.store, &policy(&state), state.clock.now_ms()).await {
        Ok(grant) => Json(grant).into_response(),
        Err(e) => {
            tracing::error!(error = %e, "issuing a wallet-login nonce failed");
            StatusCode::INTERNAL_SERVER_ERROR.into_response()
        }
    }
}

/// The wallet-login policy of this server's settings.
fn policy(state: &AppState) -> crate::account::service::SiwePolicy {
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

async fn verify(State(state): State<AppState>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    if let Some(refused) = over_budget(&parts, &state).await {
        return refused;
    }
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
    let verifiers = (&policy, state.contract_wallets.as_ref(), &state.settings.wallet_sign_in);
    let login = match login_with_wallet(&state.store, &state.tokens, verifiers, pair, now, ttl).await {
        Ok(login) => login,
        Err(WalletLoginError::Store(e)) => {
            tracing::error!(error = %e, "a wallet login failed on the database");
            return StatusCode::INTERNAL_SERVER_ERROR.into_response();
        }
        Err(WalletLoginError::NotAdmitted(why)) => {
            tracing::warn!(reason = %why, "a wallet login was not let in");
            return (StatusCode::FORBIDDEN, Json(json!({ "error": why.to_string() }))).into_response();
        }
        Err(refusal) => return refused(&refusal.to_string()),
    };
    // A session cookie the browser still held ends here: the login's new token replaces it.
    if let Some(old) = session_token(&parts.headers) {
        if let Err(e) = end_session(&state.store, &state.tokens, old).await {
            tracing::warn!(error = %e, "ending the session a wallet login replaced failed");
        }
    }
    tracing::info!(workspace = %login.session.workspace_id, address = %login.address, "logged in with a wallet");
    let cookie = session_cookie(login.session.token.as_str(), ttl, state.settings.secure_cookies);
    let reply = Json(json!({ "address": login.address, "workspaceId": login.session.workspace_id }));
    with_cookie(reply.into_response(), &cookie)
}
