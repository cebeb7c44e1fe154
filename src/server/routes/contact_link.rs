//! `GET /auth/contact/verify?token=…`: the link in a contact-verification e-mail. Public (it may be opened in a
//! browser that is not signed in: the token is the proof); it lands on the settings page saying what happened.

use axum::extract::{Query, State};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::get;
use axum::Router;
use serde::Deserialize;

use crate::account::service::{confirm_contact_link, CONTACT_LINK_PATH};
use crate::state::AppState;

/// The route.
pub fn contact_link_routes() -> Router<AppState> {
    Router::new().route(CONTACT_LINK_PATH, get(follow))
}

#[derive(Deserialize)]
struct LinkQuery {
    token: Option<String>,
}

async fn follow(State(state): State<AppState>, Query(query): Query<LinkQuery>) -> Response {
    let token = query.token.unwrap_or_default();
    match confirm_contact_link(&state.store, &state.tokens, &token, state.clock.now_ms()).await {
        Ok(Some((workspace, _))) => {
            tracing::info!(%workspace, "contact address confirmed");
            Redirect::to("/settings?contact=confirmed").into_response()
        }
        Ok(None) => Redirect::to("/settings?contact=expired").into_response(),
        Err(e) => {
            tracing::error!(error = %e, "confirming a contact address failed");
            Redirect::to("/settings?contact=server").into_response()
        }
    }
}
