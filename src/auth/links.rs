//! Login links (printed by the server, like a notebook server's token URL) and the sessions they open.

use std::time::Duration;

use crate::model::{ApiTokenId, WorkspaceId};
use crate::secrets::{RandomToken, TokenHasher};
use crate::store::{Store, StoreError, LOCAL_OWNER};

/// How long a printed login link stays valid.
const LOGIN_LINK_TTL_MS: i64 = 24 * 3600 * 1000;

/// The authenticated caller of a request, put into the request's extensions by the session middleware.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Session {
    /// The workspace whose data this request may touch.
    pub workspace_id: WorkspaceId,
    /// What the caller presented.
    pub credential: Credential,
}

/// How a request proved who it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Credential {
    /// A browser session's cookie (a login link or a wallet login opened it).
    Browser {
        /// The keyed hash of the session token.
        token_hash: String,
    },
    /// An API token (`Authorization: Bearer lgt_…`), and what it may do.
    ApiToken {
        /// The token.
        id: ApiTokenId,
        /// Its scope.
        scope: crate::model::TokenScope,
    },
}

/// A session just opened by a login link: its token goes to the browser once.
pub struct NewSession {
    /// The workspace it acts for.
    pub workspace_id: WorkspaceId,
    /// The session token (the cookie's value).
    pub token: RandomToken,
}

/// Creates a fresh one-time login URL under `public_base` for the local owner's workspace (created on first use).
pub async fn create_login_link(
    store: &Store,
    tokens: &TokenHasher,
    now_ms: i64,
    public_base: &str,
) -> Result<String, StoreError> {
    let (workspace, _) = store.ensure_workspace(LOCAL_OWNER, "My workspace", now_ms).await?;
    let token = RandomToken::generate();
    store.insert_login_token(workspace.id, &tokens.hash(token.as_str()), now_ms, now_ms + LOGIN_LINK_TTL_MS).await?;
    Ok(format!("{public_base}/auth/link?token={}", token.as_str()))
}

/// Consumes a login token and opens a session lasting `ttl`; `None` when the token is unknown, used or expired.
pub async fn redeem_login_link(
    store: &Store,
    tokens: &TokenHasher,
    login_token: &str,
    now_ms: i64,
    ttl: Duration,
) -> Result<Option<NewSession>, StoreError> {
    let Some(workspace_id) = store.consume_login_token(&tokens.hash(login_token), now_ms).await? else {
        return Ok(None);
    };
    open_session(store, tokens, workspace_id, now_ms, ttl).await.map(Some)
}

/// Opens a fresh session for `workspace_id` lasting `ttl` (every login mints a new token: no fixation).
pub(crate) async fn open_session(
    store: &Store,
    tokens: &TokenHasher,
    workspace_id: WorkspaceId,
    now_ms: i64,
    ttl: Duration,
) -> Result<NewSession, StoreError> {
    let token = RandomToken::generate();
    let ttl_ms = i64::try_from(ttl.as_millis()).unwrap_or(i64::MAX);
    store.insert_session(workspace_id, &tokens.hash(token.as_str()), now_ms, now_ms.saturating_add(ttl_ms)).await?;
    Ok(NewSession { workspace_id, token })
}

/// The live session a presented session token belongs to.
pub async fn find_session(
    store: &Store,
    tokens: &TokenHasher,
    token: &str,
    now_ms: i64,
) -> Result<Option<Session>, StoreError> {
    let hash = tokens.hash(token);
    let found = store.find_session(&hash, now_ms).await?;
    Ok(found.map(|s| Session { workspace_id: s.workspace_id, credential: Credential::Browser { token_hash: hash } }))
}

/// Ends the session a presented token belongs to (nothing when there is none).
pub async fn end_session(store: &Store, tokens: &TokenHasher, token: &str) -> Result<(), StoreError> {
    store.delete_session(&tokens.hash(token)).await
}
