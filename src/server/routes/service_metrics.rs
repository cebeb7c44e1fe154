//! `GET /metrics`: the service's own metrics for Prometheus (`guard::exposition`), when the `metrics` setting is
//! on (else 404). With `metrics-token` set, the scraper presents it as `Authorization: Bearer …` (compared in
//! constant time; 401 otherwise); without one, only a loopback client is answered (403), judged by the client
//! address the budgets use, so a reverse proxy that names the client in `client-ip-header` does not make every
//! request look local.

use axum::extract::{Request, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use std::net::IpAddr;

use crate::guard::service::{exposition, EXPOSITION_CONTENT_TYPE};
use crate::server::middleware::client_address;
use crate::state::AppState;

/// The handler.
pub async fn service_metrics(State(state): State<AppState>, request: Request) -> Response {
    if !state.settings.metrics {
        return StatusCode::NOT_FOUND.into_response();
    }
    let (parts, _) = request.into_parts();
    match &state.settings.metrics_token {
        Some(token) => {
            let presented = parts
                .headers
                .get(header::AUTHORIZATION)
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.strip_prefix("Bearer "))
                .unwrap_or_default();
            if !token.matches(presented.trim()) {
                let challenge = [(header::WWW_AUTHENTICATE, "Bearer")];
                return (StatusCode::UNAUTHORIZED, challenge, "missing or wrong bearer token (metrics-token)")
                    .into_response();
            }
        }
        None if !is_loopback(client_address(&parts, &state.settings)) => {
            let why = "/metrics answers loopback clients only; set metrics-token to scrape from another host";
            return (StatusCode::FORBIDDEN, why).into_response();
        }
        None => {}
    }
    match exposition(&state.store).await {
        Ok(text) => ([(header::CONTENT_TYPE, EXPOSITION_CONTENT_TYPE)], text).into_response(),
        Err(e) => {
            tracing::error!(error = %e, "reading the figures for /metrics failed");
            (StatusCode::INTERNAL_SERVER_ERROR, "the figures could not be read; see the server log").into_response()
        }
    }
}

/// Loopback, IPv4-mapped IPv6 included.
fn is_loopback(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => v4.is_loopback(),
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(v6.is_loopback(), |v4| v4.is_loopback()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_in_every_spelling_and_nothing_else() {
        for local in ["127.0.0.1", "127.8.9.10", "::1", "::ffff:127.0.0.1"] {
            assert!(is_loopback(local.parse().unwrap()), "{local}");
        }
        for remote in ["10.0.0.1", "0.0.0.0", "::ffff:10.0.0.1", "2001:db8::1"] {
            assert!(!is_loopback(remote.parse().unwrap()), "{remote}");
        }
    }
}
