//! Request checks in front of the routes: the session check on every non-public route, and the same-origin
//! check on writes.

use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Redirect, Response};
use std::sync::Arc;

use crate::account::service::session_for_api_token;
use crate::auth::{find_session, token_scope_refusal, Credential};
use crate::config::Settings;
use crate::state::AppState;

/// The session cookie's name.
pub const SESSION_COOKIE: &str = "lg_session";

/// Paths anyone may request: the login page and its link handler, static assets, public hooks.
fn is_public(path: &str) -> bool {
    path == "/login"
        || path.starts_with("/share/")
        || path == "/favicon.ico"
        || path == "/healthz"
        // Its own token or loopback rule (routes/service_metrics.rs): a scraper has no session.
        || path == "/metrics"
        || ["/auth/", "/pkg/", "/assets/", "/api/public/"].iter().any(|p| path.starts_with(p))
}

/// The value of the session cookie, if the request has one.
pub(in crate::server) fn session_token(headers: &HeaderMap) -> Option<&str> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(name, _)| *name == SESSION_COOKIE)
        .map(|(_, value)| value)
}

/// The token of an `Authorization: Bearer …` header, if the request has one.
fn bearer_token(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.trim().split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then(|| token.trim())
}

fn unauthorized() -> Response {
    (StatusCode::UNAUTHORIZED, [(header::CONTENT_TYPE, "application/json")], r#"{"kind":"unauthorized"}"#)
        .into_response()
}

/// The 403 the browser's error type reads (`{"kind": "forbidden", "detail": …}`).
fn forbidden(why: &str) -> Response {
    let body = serde_json::json!({ "kind": "forbidden", "detail": why }).to_string();
    (StatusCode::FORBIDDEN, [(header::CONTENT_TYPE, "application/json")], body).into_response()
}

/// Resolves the caller into a [`crate::auth::Session`] in the request's extensions: an API token
/// (`Authorization: Bearer lgt_…`, on `/api/` only, and only for the calls its scope covers: `auth::Needs`) or
/// else the session cookie. Pages without a session redirect
/// to `/login`, API calls get 401; a token that is not accepted is a 401 even when a cookie is present too.
pub async fn require_session(State(state): State<AppState>, mut request: Request, next: Next) -> Response {
    let path = request.uri().path().to_string();
    if is_public(&path) {
        return next.run(request).await;
    }
    if let Some(token) = bearer_token(request.headers()).filter(|_| path.starts_with("/api/")) {
        let now = state.clock.now_ms();
        return match session_for_api_token(&state.store, &state.tokens, token, now).await {
            Ok(Ok(session)) => {
                if let Credential::ApiToken { scope, .. } = session.credential {
                    if let Some(why) = token_scope_refusal(scope, path.trim_start_matches("/api/")) {
                        tracing::warn!(path, reason = %why, "an API token's scope does not cover the call");
                        return forbidden(&why);
                    }
                }
                if let Some(refusal) = not_admitted(&state, &session, &path).await {
                    return refusal;
                }
                request.extensions_mut().insert(session);
                next.run(request).await
            }
            Ok(Err(refusal)) => {
                tracing::warn!(?refusal, path, "an API token was not accepted");
                unauthorized()
            }
            Err(e) => {
                tracing::error!(error = %e, "API token lookup failed");
                StatusCode::INTERNAL_SERVER_ERROR.into_response()
            }
        };
    }
    let session = match session_token(request.headers()) {
        Some(token) => match find_session(&state.store, &state.tokens, token, state.clock.now_ms()).await {
            Ok(found) => found,
            Err(e) => {
                tracing::error!(error = %e, "session lookup failed");
                return StatusCode::INTERNAL_SERVER_ERROR.into_response();
            }
        },
        None => None,
    };
    match session {
        Some(session) => {
            if let Some(refusal) = not_admitted(&state, &session, &path).await {
                return refusal;
            }
            request.extensions_mut().insert(session);
            next.run(request).await
        }
        None if path.starts_with("/api/") => unauthorized(),
        None => Redirect::to("/login").into_response(),
    }
}

/// The answer to a session or token whose wallet the operator no longer lets in (`wallet-sign-in`): a 403 saying so
/// on `/api/`, sign-in for a page; `None` when it is let in.
async fn not_admitted(state: &AppState, session: &crate::auth::Session, path: &str) -> Option<Response> {
    match crate::account::service::still_admitted(&state.store, &state.settings.wallet_sign_in, session.workspace_id)
        .await
    {
        Ok(Ok(())) => None,
        Ok(Err(why)) if path.starts_with("/api/") => Some(forbidden(&why.to_string())),
        Ok(Err(_)) => Some(Redirect::to("/login").into_response()),
        Err(e) => {
            tracing::error!(error = %e, "checking a session's wallet admission failed");
            Some(StatusCode::INTERNAL_SERVER_ERROR.into_response())
        }
    }
}

/// Refuses state-changing requests that a browser sent from another origin (CSRF defence on top of
/// `SameSite=Lax`). Requests without `Origin` (curl, the CLI) pass: they carry no ambient cookie. An app served
/// over https (its `public-url` is https, or cookies are `Secure`) refuses writes from a plain-http page of the
/// same host.
pub async fn same_origin_writes(State(settings): State<Arc<Settings>>, request: Request, next: Next) -> Response {
    let safe = matches!(*request.method(), Method::GET | Method::HEAD | Method::OPTIONS);
    let https_only = settings.secure_cookies || settings.public_base().starts_with("https://");
    if !safe && is_cross_origin(request.headers(), https_only) {
        tracing::warn!(path = request.uri().path(), "refused a cross-origin write");
        return (StatusCode::FORBIDDEN, "cross-origin request refused").into_response();
    }
    next.run(request).await
}

/// Whether the `Origin` is another origin than this app: another host or port, an opaque `null` origin, a scheme
/// other than http(s) (a `file:` page, an extension), or plain http when the app is served over https only.
fn is_cross_origin(headers: &HeaderMap, https_only: bool) -> bool {
    if headers.get("sec-fetch-site").and_then(|v| v.to_str().ok()) == Some("cross-site") {
        return true;
    }
    let Some(origin) = headers.get(header::ORIGIN).and_then(|v| v.to_str().ok()) else {
        return false;
    };
    let host = headers.get(header::HOST).and_then(|v| v.to_str().ok()).unwrap_or_default();
    let Some((scheme, authority)) = origin.split_once("://") else {
        return true; // "null" and anything else that is not scheme://authority
    };
    let scheme_ok = match scheme.to_ascii_lowercase().as_str() {
        "https" => true,
        "http" => !https_only,
        _ => false,
    };
    !scheme_ok || !authority.eq_ignore_ascii_case(host)
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (k, v) in pairs {
            map.append(*k, HeaderValue::from_static(v));
        }
        map
    }

    #[test]
    fn finds_the_session_cookie_among_others() {
        let h = headers(&[("cookie", "a=1; lg_session=tok; b=2")]);
        assert_eq!(session_token(&h), Some("tok"));
        assert_eq!(session_token(&headers(&[("cookie", "lg_sessionx=1")])), None);
    }

    #[test]
    fn reads_a_bearer_token_in_any_case_of_the_scheme() {
        assert_eq!(bearer_token(&headers(&[("authorization", "Bearer lgt_abc")])), Some("lgt_abc"));
        assert_eq!(bearer_token(&headers(&[("authorization", "bearer  lgt_abc ")])), Some("lgt_abc"));
        assert_eq!(bearer_token(&headers(&[("authorization", "Basic dXNlcg==")])), None);
        assert_eq!(bearer_token(&headers(&[])), None);
    }

    #[test]
    fn cross_origin_is_judged_against_the_host_header() {
        let same = headers(&[("host", "127.0.0.1:3000"), ("origin", "http://127.0.0.1:3000")]);
        assert!(!is_cross_origin(&same, false));
        assert!(is_cross_origin(&headers(&[("host", "127.0.0.1:3000"), ("origin", "http://evil.example")]), false));
        assert!(is_cross_origin(&headers(&[("host", "h"), ("sec-fetch-site", "cross-site")]), false));
        assert!(!is_cross_origin(&headers(&[("host", "h")]), false));
    }

    #[test]
    fn the_origins_scheme_counts_too() {
        for origin in ["ftp://h:3000", "chrome-extension://h:3000", "file://h:3000", "null", "h:3000"] {
            let h = HeaderMap::from_iter([
                (header::HOST, HeaderValue::from_static("h:3000")),
                (header::ORIGIN, HeaderValue::from_str(origin).unwrap()),
            ]);
            assert!(is_cross_origin(&h, false), "{origin}");
        }
        let plain = headers(&[("host", "h:3000"), ("origin", "http://h:3000")]);
        assert!(is_cross_origin(&plain, true), "a plain-http page writing to an https-only app");
        assert!(!is_cross_origin(&headers(&[("host", "h:3000"), ("origin", "https://h:3000")]), true));
    }

    #[test]
    fn only_login_assets_and_public_hooks_are_public() {
        for p in ["/login", "/auth/link", "/pkg/latency-guard.wasm", "/favicon.ico", "/api/public/hooks/guard-tick"] {
            assert!(is_public(p), "{p}");
        }
        for p in ["/", "/connectors", "/api/connectors/list", "/loginx"] {
            assert!(!is_public(p), "{p}");
        }
    }
}
