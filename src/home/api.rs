//! The home page's server function: the page as the server renders it. Its one button, "Run the demo", is a plain
//! form the server answers (`server::routes::demo_run`), so it works before the page's WASM has loaded.

use leptos::prelude::*;

use crate::error::AppError;
use crate::wire::{Json, ServerHtml};

#[cfg(feature = "ssr")]
use crate::api::context::with_session;

/// `POST /api/home/page`, `{}`: the home page under its title — the first steps while any is left, the newest runs
/// with their headline figures, Guard's schedules and open incidents.
#[server(prefix = "/api", endpoint = "home/page", input = Json, output = Json)]
pub async fn get_home_page() -> Result<ServerHtml, AppError> {
    with_session(|state, session| async move {
        let home = crate::home::service::home(&state.store, session.workspace_id).await?;
        Ok(crate::home::fragments::home_page(&home))
    })
    .await
}
