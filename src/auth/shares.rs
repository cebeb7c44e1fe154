//! Share tokens: which report a presented token opens. Any failure to authorise — no token, malformed id, no
//! share, wrong or revoked token — is the same `None`, so a guess learns nothing. The token is compared as a
//! keyed hash in constant time and never logged.

use subtle::ConstantTimeEq;

use crate::model::{RunId, WorkspaceId};
use crate::secrets::TokenHasher;
use crate::store::{Store, StoreError};

/// The workspace and run that `token` opens for the report `id`, or `None`.
pub async fn open_shared_report(
    store: &Store,
    tokens: &TokenHasher,
    id: &str,
    token: Option<&str>,
) -> Result<Option<(WorkspaceId, RunId)>, StoreError> {
    let Some(token) = token.filter(|t| !t.is_empty()) else { return Ok(None) };
    let Ok(id) = id.parse::<RunId>() else { return Ok(None) };
    let Some(share) = store.share_of(id).await? else { return Ok(None) };
    let presented = tokens.hash(token);
    if !bool::from(presented.as_bytes().ct_eq(share.token_hash.as_bytes())) {
        return Ok(None);
    }
    Ok(Some((share.workspace_id, id)))
}
