//! What every server function starts with: the app state and the caller's session.

use leptos::prelude::use_context;

use crate::auth::Session;
use crate::error::AppError;
use crate::state::AppState;
use crate::store::StoreError;

/// The state and session of the current request; `Unauthorized` without a session.
pub(super) fn state_and_session() -> Result<(AppState, Session), AppError> {
    let state = use_context::<AppState>().ok_or_else(|| {
        tracing::error!("AppState missing from the server-function context");
        AppError::Internal
    })?;
    let parts = use_context::<http::request::Parts>().ok_or(AppError::Unauthorized)?;
    let session = parts.extensions.get::<Session>().cloned().ok_or(AppError::Unauthorized)?;
    Ok((state, session))
}

/// Maps a store failure to what the caller may see; internal details go to the log only.
pub(super) fn store_error(error: StoreError) -> AppError {
    match error {
        StoreError::NotFound => AppError::NotFound,
        StoreError::Invalid(v) => AppError::Invalid(v),
        other => {
            tracing::error!(error = %other, "store operation failed");
            AppError::Internal
        }
    }
}

/// Gives an error reply its HTTP status (401, 404, 400, ...) instead of the default 500.
pub(super) fn reply<T>(result: Result<T, AppError>) -> Result<T, AppError> {
    if let Err(e) = &result {
        if let Some(response) = use_context::<leptos_axum::ResponseOptions>() {
            response.set_status(e.status_code());
        }
    }
    result
}
