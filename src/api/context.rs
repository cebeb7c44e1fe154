//! What every server function's body runs inside: the app state and the caller's session in, a reply with the
//! right HTTP status out. Domain errors become [`AppError`] here, once; internal details go to the log only.

use leptos::prelude::use_context;
use std::future::Future;

use crate::auth::Session;
use crate::error::AppError;
use crate::jobs::StartError;
use crate::state::AppState;
use crate::store::StoreError;
use crate::targets::ResolveError;

/// Runs `body` with the state and session of the current request (`Unauthorized` without a session) and gives
/// a failure its HTTP status (401, 404, 400, ...) instead of the default 500.
pub(crate) async fn with_session<T, F, Fut>(body: F) -> Result<T, AppError>
where
    F: FnOnce(AppState, Session) -> Fut,
    Fut: Future<Output = Result<T, AppError>>,
{
    let result = match state_and_session() {
        Ok((state, session)) => body(state, session).await,
        Err(e) => Err(e),
    };
    if let Err(e) = &result {
        if let Some(response) = use_context::<leptos_axum::ResponseOptions>() {
            response.set_status(e.status_code());
        }
    }
    result
}

fn state_and_session() -> Result<(AppState, Session), AppError> {
    let state = use_context::<AppState>().ok_or_else(|| {
        tracing::error!("AppState missing from the server-function context");
        AppError::Internal
    })?;
    let parts = use_context::<http::request::Parts>().ok_or(AppError::Unauthorized)?;
    let session = parts.extensions.get::<Session>().cloned().ok_or(AppError::Unauthorized)?;
    Ok((state, session))
}

impl From<StoreError> for AppError {
    fn from(error: StoreError) -> Self {
        match error {
            StoreError::NotFound => AppError::NotFound,
            StoreError::Invalid(v) => AppError::Invalid(v),
            other => {
                tracing::error!(error = %other, "store operation failed");
                AppError::Internal
            }
        }
    }
}

/// `Invalid` and `Store` failures of the domain's request-shaped errors, mapped alike (a feature maps its own
/// beside its server functions).
macro_rules! invalid_or_store {
    ($($error:ident),*) => {$(
        impl From<$error> for AppError {
            fn from(error: $error) -> Self {
                match error {
                    $error::Invalid(v) => AppError::Invalid(v),
                    $error::Store(s) => s.into(),
                }
            }
        }
    )*};
}

pub(crate) use invalid_or_store;

invalid_or_store!(StartError, ResolveError);
