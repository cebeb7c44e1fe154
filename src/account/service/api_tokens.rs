//! API tokens for scripts: created with a name and an optional lifetime, shown once as `lgt_…`, kept as a keyed
//! hash, resolved into a [`Session`] for the workspace on every API request that carries one, revoked by the owner.

use crate::account::store::TokenRefusal;
use crate::auth::{Credential, Session};
use crate::model::{
    ApiTokenId, ApiTokenInput, ApiTokenState, ApiTokenView, NewApiToken, ValidationError, WorkspaceId, API_TOKEN_PREFIX,
};
use crate::secrets::{RandomToken, TokenHasher};
use crate::store::{Store, StoreError};

/// How many characters of a token its listing shows (the prefix and four of the secret).
const HINT_CHARS: usize = API_TOKEN_PREFIX.len() + 4;

/// Why a token could not be created.
#[derive(Debug, thiserror::Error)]
pub enum CreateTokenError {
    /// A field is wrong.
    #[error("{0}")]
    Invalid(#[from] ValidationError),
    /// The database failed (or the workspace has too many tokens).
    #[error("{0}")]
    Store(#[from] StoreError),
}

/// Creates a token for `workspace`; its secret is in the reply only.
pub async fn create_api_token(
    store: &Store,
    hasher: &TokenHasher,
    workspace: WorkspaceId,
    input: &ApiTokenInput,
    now_ms: i64,
) -> Result<NewApiToken, CreateTokenError> {
    let (name, lifetime) = input.validate()?;
    let token = format!("{API_TOKEN_PREFIX}{}", RandomToken::generate().as_str());
    let view = ApiTokenView {
        id: ApiTokenId::new_random(),
        name,
        hint: format!("{}…", &token[..HINT_CHARS]),
        created_at_ms: now_ms,
        expires_at_ms: lifetime.map(|ms| now_ms + ms),
        last_used_at_ms: None,
        revoked_at_ms: None,
        state: ApiTokenState::Active,
        scope: input.scope,
    };
    store.insert_api_token(workspace, &view, &hasher.hash(&token)).await?;
    Ok(NewApiToken { token, view })
}

/// The session a presented API token opens, or why it opens none (the middleware logs the reason and answers 401
/// without it, so a caller cannot probe which tokens exist).
pub async fn session_for_api_token(
    store: &Store,
    hasher: &TokenHasher,
    presented: &str,
    now_ms: i64,
) -> Result<Result<Session, TokenRefusal>, StoreError> {
    if !presented.starts_with(API_TOKEN_PREFIX) {
        return Ok(Err(TokenRefusal::Unknown));
    }
    Ok(store.use_api_token(&hasher.hash(presented), now_ms).await?.map(|record| Session {
        workspace_id: record.workspace_id,
        credential: Credential::ApiToken { id: record.id, scope: record.scope },
    }))
}
