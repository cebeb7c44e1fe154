//! `POST /home/demo-run`: the home page's "Run the demo", a plain form (it works before the page's WASM has loaded):
//! starts the workspace's demo run and sends the browser to its report, or back home with what went wrong
//! (`?demo=no-demo|not-started`, which the page words; the cause goes to the log).

use axum::extract::State;
use axum::response::{IntoResponse, Redirect, Response};
use axum::Extension;

use crate::auth::Session;
use crate::home::service::{start_demo_run, DemoError};
use crate::state::AppState;

/// The handler. A 303, so the browser follows with a GET and a reload does not start a second run.
pub async fn demo_run(State(state): State<AppState>, Extension(session): Extension<Session>) -> Response {
    match start_demo_run(&state.store, &state.runs, session.workspace_id).await {
        Ok(run) => {
            tracing::info!(workspace = %session.workspace_id, run = %run.id, "demo run started from the home page");
            Redirect::to(&format!("/runs/{}", run.id)).into_response()
        }
        Err(DemoError::NoDemo) => Redirect::to("/?demo=no-demo").into_response(),
        Err(e) => {
            tracing::warn!(workspace = %session.workspace_id, error = %e, "the demo run did not start");
            Redirect::to("/?demo=not-started").into_response()
        }
    }
}
