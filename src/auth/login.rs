//! One-time login links (printed by the server, like a notebook server's token URL) and the session cookie.

use axum::extract::{Query, State};
use axum::http::{header, HeaderMap, HeaderValue};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use axum::Router;
use serde::Deserialize;

use super::guard::{session_token, SESSION_COOKIE};
use crate::secrets::RandomToken;
use crate::server::AppState;
use crate::store::{StoreError, LOCAL_OWNER};

/// How long a printed login link stays valid.
const LOGIN_LINK_TTL_MS: i64 = 24 * 3600 * 1000;

/// Creates a fresh one-time login URL for the local owner's workspace (created on first use).
pub async fn create_login_link(state: &AppState) -> Result<String, StoreError> {
    let now = state.clock.now_ms();
    let (workspace, _) = state.store.ensure_workspace(LOCAL_OWNER, "My workspace", now).await?;
    let token = RandomToken::generate();
    state
        .store
        .insert_login_token(workspace.id, &state.tokens.hash(token.as_str()), now, now + LOGIN_LINK_TTL_MS)
        .await?;
    Ok(format!("{}/auth/link?token={}", state.settings.public_base(), token.as_str()))
}

/// `/auth/link` (GET, consumes a login token) and `/auth/logout` (POST).
pub fn login_routes() -> Router<AppState> {
    Router::new().route("/auth/link", get(follow_link)).route("/auth/logout", post(logout))
}

#[derive(Deserialize)]
struct LinkQuery {
    token: Option<String>,
}

async fn follow_link(State(state): State<AppState>, Query(query): Query<LinkQuery>) -> Response {
    let Some(token) = query.token.filter(|t| !t.is_empty()) else {
        return Redirect::to("/login?error=missing").into_response();
    };
    let now = state.clock.now_ms();
    let workspace = match state.store.consume_login_token(&state.tokens.hash(&token), now).await {
        Ok(Some(ws)) => ws,
        Ok(None) => return Redirect::to("/login?error=expired").into_response(),
        Err(e) => {
            tracing::error!(error = %e, "login link check failed");
            return Redirect::to("/login?error=server").into_response();
        }
    };
    let session = RandomToken::generate();
    let ttl_ms = i64::try_from(state.settings.session_ttl.as_millis()).unwrap_or(i64::MAX);
    if let Err(e) = state
        .store
        .insert_session(workspace, &state.tokens.hash(session.as_str()), now, now.saturating_add(ttl_ms))
        .await
    {
        tracing::error!(error = %e, "session insert failed");
        return Redirect::to("/login?error=server").into_response();
    }
    tracing::info!(workspace = %workspace, "logged in through a login link");
    let cookie = format!(
        "{SESSION_COOKIE}={}; Path=/; HttpOnly; SameSite=Lax; Max-Age={}{}",
        session.as_str(),
        state.settings.session_ttl.as_secs(),
        if state.settings.secure_cookies { "; Secure" } else { "" }
    );
    with_cookie(Redirect::to("/connectors").into_response(), &cookie)
}

async fn logout(State(state): State<AppState>, headers: HeaderMap) -> Response {
    if let Some(token) = session_token(&headers) {
        if let Err(e) = state.store.delete_session(&state.tokens.hash(token)).await {
            tracing::error!(error = %e, "logout failed");
        }
    }
    let cookie = format!("{SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0");
    with_cookie(Redirect::to("/login").into_response(), &cookie)
}

fn with_cookie(mut response: Response, cookie: &str) -> Response {
    if let Ok(value) = HeaderValue::from_str(cookie) {
        response.headers_mut().append(header::SET_COOKIE, value);
    }
    response
}
