//! `/auth/link` (GET, follows a one-time login link and sets the session cookie) and `/auth/logout` (POST).

use axum::extract::{Query, State};
use axum::http::{header, HeaderMap, HeaderValue};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use axum::Router;
use serde::Deserialize;

use crate::auth::{end_session, redeem_login_link};
use crate::secrets::TokenHasher;
use crate::server::middleware::{session_token, SESSION_COOKIE};
use crate::state::AppState;
use crate::store::Store;

/// The login routes.
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
    let ttl = state.settings.session_ttl;
    let session = match redeem_login_link(&state.store, &state.tokens, &token, now, ttl).await {
        Ok(Some(session)) => session,
        Ok(None) => return Redirect::to("/login?error=expired").into_response(),
        Err(e) => {
            tracing::error!(error = %e, "following a login link failed");
            return Redirect::to("/login?error=server").into_response();
        }
    };
    tracing::info!(workspace = %session.workspace_id, "logged in through a login link");
    let cookie = session_cookie(session.token.as_str(), ttl, state.settings.secure_cookies);
    with_cookie(Redirect::to("/").into_response(), &cookie)
}

/// The `Set-Cookie` value of a new session (every login's, link or wallet).
pub(super) fn session_cookie(token: &str, ttl: std::time::Duration, secure: bool) -> String {
    format!(
        "{SESSION_COOKIE}={token}; Path=/; HttpOnly; SameSite=Lax; Max-Age={}{}",
        ttl.as_secs(),
        if secure { "; Secure" } else { "" }
    )
}

async fn logout(State(store): State<Store>, State(tokens): State<TokenHasher>, headers: HeaderMap) -> Response {
    if let Some(token) = session_token(&headers) {
        if let Err(e) = end_session(&store, &tokens, token).await {
            tracing::error!(error = %e, "logout failed");
        }
    }
    let cookie = format!("{SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0");
    with_cookie(Redirect::to("/login").into_response(), &cookie)
}

pub(super) fn with_cookie(mut response: Response, cookie: &str) -> Response {
    if let Ok(value) = HeaderValue::from_str(cookie) {
        response.headers_mut().append(header::SET_COOKIE, value);
    }
    response
}
