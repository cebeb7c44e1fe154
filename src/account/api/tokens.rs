//! API tokens of the workspace: create (the secret is in this one reply), list, revoke. Managed from a browser
//! session only: a token cannot mint or revoke tokens, so a leaked one cannot entrench itself.

use leptos::prelude::*;

use crate::error::AppError;
use crate::model::{ApiTokenId, ApiTokenInput, ApiTokenView, Checked, NewApiToken};
use crate::wire::Json;

#[cfg(feature = "ssr")]
use crate::api::context::with_session;

#[cfg(feature = "ssr")]
fn browser_only(session: &crate::auth::Session) -> Result<(), AppError> {
    match session.credential {
        crate::auth::Credential::Browser { .. } => Ok(()),
        crate::auth::Credential::ApiToken { .. } => {
            Err(AppError::Forbidden("API tokens are managed from a signed-in browser, not with a token".into()))
        }
    }
}

/// `POST /api/tokens/create`, `{"input": {name, expiresInDays?}}`: a new token, its secret shown this once.
#[server(prefix = "/api", endpoint = "tokens/create", input = Json, output = Json)]
pub async fn create_api_token(input: Checked<ApiTokenInput>) -> Result<NewApiToken, AppError> {
    with_session(|state, session| async move {
        browser_only(&session)?;
        let now = state.clock.now_ms();
        match crate::account::service::create_api_token(
            &state.store,
            &state.tokens,
            session.workspace_id,
            &input.0,
            now,
        )
        .await
        {
            Ok(created) => {
                tracing::info!(workspace = %session.workspace_id, token = %created.view.id, "API token created");
                Ok(created)
            }
            Err(crate::account::service::CreateTokenError::Invalid(v)) => Err(AppError::Invalid(v)),
            Err(crate::account::service::CreateTokenError::Store(e)) => Err(e.into()),
        }
    })
    .await
}

/// `POST /api/tokens/list`: the workspace's tokens, newest first (never their secrets).
#[server(prefix = "/api", endpoint = "tokens/list", input = Json, output = Json)]
pub async fn list_api_tokens() -> Result<Vec<ApiTokenView>, AppError> {
    with_session(|state, session| async move {
        Ok(state.store.list_api_tokens(session.workspace_id, state.clock.now_ms()).await?)
    })
    .await
}

/// `POST /api/tokens/revoke`, `{"id"}`: the token stops working at once; `false` when it was already revoked.
#[server(prefix = "/api", endpoint = "tokens/revoke", input = Json, output = Json)]
pub async fn revoke_api_token(id: ApiTokenId) -> Result<bool, AppError> {
    with_session(|state, session| async move {
        browser_only(&session)?;
        let revoked = state.store.revoke_api_token(session.workspace_id, id, state.clock.now_ms()).await?;
        tracing::info!(workspace = %session.workspace_id, token = %id, "API token revoked");
        Ok(revoked)
    })
    .await
}
