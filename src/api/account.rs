//! The signed-in account: who it is (the sidebar), its name, and signing out of every session.

use leptos::prelude::*;
use leptos::server_fn::codec::Json;

use crate::error::AppError;
use crate::model::AccountView;

#[cfg(feature = "ssr")]
use super::context::with_session;

/// `POST /api/account/whoami`: the workspace's name and how its owner signs in.
#[server(prefix = "/api", endpoint = "account/whoami", input = Json)]
pub async fn whoami() -> Result<AccountView, AppError> {
    with_session(|state, session| async move { Ok(crate::auth::account_of(&state.store, session.workspace_id).await?) })
        .await
}

/// `POST /api/account/rename`, `{"name"}`: the workspace's display name (1–80 characters).
#[server(prefix = "/api", endpoint = "account/rename", input = Json)]
pub async fn rename_workspace(name: String) -> Result<AccountView, AppError> {
    with_session(|state, session| async move {
        let name = crate::model::validate_workspace_name(&name)?;
        state.store.rename_workspace(session.workspace_id, &name).await?;
        Ok(crate::auth::account_of(&state.store, session.workspace_id).await?)
    })
    .await
}

/// `POST /api/account/sign-out-everywhere`: ends every browser session of the workspace, this one included; how
/// many ended. API tokens are not sessions: revoke them one by one.
#[server(prefix = "/api", endpoint = "account/sign-out-everywhere", input = Json)]
pub async fn sign_out_everywhere() -> Result<u64, AppError> {
    with_session(|state, session| async move {
        let ended = state.store.delete_sessions_of(session.workspace_id).await?;
        tracing::info!(workspace = %session.workspace_id, ended, "signed out everywhere");
        Ok(ended)
    })
    .await
}
