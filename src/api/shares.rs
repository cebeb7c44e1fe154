//! Share links of reports: create (or replace), revoke. The public read is the route
//! `GET /api/public/reports/{id}` with the header `x-share-token` (`server::routes::shared_reports`).

use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use crate::error::AppError;
use crate::model::RunId;
use crate::wire::Json;

#[cfg(feature = "ssr")]
use super::context::with_session;

/// A new share link's token: shown to the owner once (only its hash is kept). The link is
/// `/share/{id}#{token}`: after `#`, so the token never travels in a request line or a server log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ShareLink {
    /// The secret part of the link.
    pub token: String,
    /// When the link was made, unix ms.
    pub created_at_ms: i64,
}

/// `POST /api/reports/share`, `{"id"}`: a new share link for the report; an earlier link stops working.
#[server(prefix = "/api", endpoint = "reports/share", input = Json, output = Json)]
pub async fn share_report(id: RunId) -> Result<ShareLink, AppError> {
    with_session(|state, session| async move {
        let token = crate::secrets::RandomToken::generate();
        let now = state.clock.now_ms();
        let hash = state.tokens.hash(token.as_str());
        state.store.share_report(session.workspace_id, id, &hash, now).await?;
        Ok(ShareLink { token: token.as_str().to_string(), created_at_ms: now })
    })
    .await
}

/// `POST /api/reports/unshare`, `{"id"}`: revokes the report's share link; `false` when it had none.
#[server(prefix = "/api", endpoint = "reports/unshare", input = Json, output = Json)]
pub async fn revoke_share(id: RunId) -> Result<bool, AppError> {
    with_session(|state, session| async move {
        state.store.get_run(session.workspace_id, id).await?;
        Ok(state.store.revoke_share(session.workspace_id, id).await?)
    })
    .await
}
