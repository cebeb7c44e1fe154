//! The signed-in account: who it is (the sidebar).

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
