//! API tokens: stored as keyed hashes; listed, resolved on each request (with its last use kept to the minute),
//! revoked.

use sqlx::any::AnyRow;
use sqlx::Row;

use crate::model::{ApiTokenId, ApiTokenState, ApiTokenView, Holding, TokenScope, WorkspaceId};
use crate::store::{parse_id, Store, StoreError};

/// How stale a token's last-used time may get before a request writes it again: one write a minute per token at
/// most, not one per request.
const LAST_USED_RESOLUTION_MS: i64 = 60_000;

/// A token's row as the middleware needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiTokenRecord {
    /// The token.
    pub id: ApiTokenId,
    /// The workspace it acts for.
    pub workspace_id: WorkspaceId,
    /// What it may do.
    pub scope: TokenScope,
}

/// Why a presented token hash is not accepted (logged; the caller only hears "not accepted").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenRefusal {
    /// No token has this hash.
    Unknown,
    /// Revoked.
    Revoked,
    /// Past its expiry.
    Expired,
}

impl Store {
    /// Stores a new token's hash; `Invalid` when the workspace keeps [`Holding::ApiTokens`]' most.
    pub async fn insert_api_token(
        &self,
        workspace: WorkspaceId,
        view: &ApiTokenView,
        token_hash: &str,
    ) -> Result<(), StoreError> {
        let mut tx = self.begin_with_room(workspace, Holding::ApiTokens).await?;
        sqlx::query(
            "INSERT INTO api_tokens (id, workspace_id, name, token_hash, hint, created_at, expires_at, scope) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
        )
        .bind(view.id.to_string())
        .bind(workspace.to_string())
        .bind(&view.name)
        .bind(token_hash)
        .bind(&view.hint)
        .bind(view.created_at_ms)
        .bind(view.expires_at_ms)
        .bind(view.scope.as_str())
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(())
    }

    /// The workspace's tokens, newest first, with their state at `now_ms`.
    pub async fn list_api_tokens(&self, workspace: WorkspaceId, now_ms: i64) -> Result<Vec<ApiTokenView>, StoreError> {
        let rows = sqlx::query(
            "SELECT id, name, hint, created_at, expires_at, last_used_at, revoked_at, scope FROM api_tokens \
             WHERE workspace_id = $1 ORDER BY created_at DESC, id",
        )
        .bind(workspace.to_string())
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(|row| view_from_row(row, now_ms)).collect()
    }

    /// Revokes a token of the workspace; `false` when it was already revoked, `NotFound` when it is not theirs.
    pub async fn revoke_api_token(
        &self,
        workspace: WorkspaceId,
        id: ApiTokenId,
        now_ms: i64,
    ) -> Result<bool, StoreError> {
        let revoked = sqlx::query(
            "UPDATE api_tokens SET revoked_at = $1 WHERE id = $2 AND workspace_id = $3 AND revoked_at IS NULL",
        )
        .bind(now_ms)
        .bind(id.to_string())
        .bind(workspace.to_string())
        .execute(&self.pool)
        .await?
        .rows_affected();
        self.touched_or_found("api_tokens", revoked, workspace, id).await
    }

    /// The live token with this hash, its last use noted (to the minute); or why it is not accepted.
    pub async fn use_api_token(
        &self,
        token_hash: &str,
        now_ms: i64,
    ) -> Result<Result<ApiTokenRecord, TokenRefusal>, StoreError> {
        let Some(row) =
            sqlx::query("SELECT id, workspace_id, expires_at, revoked_at, scope FROM api_tokens WHERE token_hash = $1")
                .bind(token_hash)
                .fetch_optional(&self.pool)
                .await?
        else {
            return Ok(Err(TokenRefusal::Unknown));
        };
        if row.try_get::<Option<i64>, _>("revoked_at")?.is_some() {
            return Ok(Err(TokenRefusal::Revoked));
        }
        if row.try_get::<Option<i64>, _>("expires_at")?.is_some_and(|at| at <= now_ms) {
            return Ok(Err(TokenRefusal::Expired));
        }
        let id: String = row.try_get("id")?;
        sqlx::query(
            "UPDATE api_tokens SET last_used_at = $1 WHERE id = $2 AND (last_used_at IS NULL OR last_used_at <= $3)",
        )
        .bind(now_ms)
        .bind(&id)
        .bind(now_ms - LAST_USED_RESOLUTION_MS)
        .execute(&self.pool)
        .await?;
        Ok(Ok(ApiTokenRecord {
            id: parse_id(&id)?,
            workspace_id: parse_id(&row.try_get::<String, _>("workspace_id")?)?,
            scope: scope_of(&row)?,
        }))
    }
}

fn view_from_row(row: &AnyRow, now_ms: i64) -> Result<ApiTokenView, StoreError> {
    let (revoked_at_ms, expires_at_ms) = (row.try_get("revoked_at")?, row.try_get("expires_at")?);
    Ok(ApiTokenView {
        id: parse_id(&row.try_get::<String, _>("id")?)?,
        name: row.try_get("name")?,
        hint: row.try_get("hint")?,
        created_at_ms: row.try_get("created_at")?,
        expires_at_ms,
        last_used_at_ms: row.try_get("last_used_at")?,
        revoked_at_ms,
        state: ApiTokenState::at(now_ms, revoked_at_ms, expires_at_ms),
        scope: scope_of(row)?,
    })
}

fn scope_of(row: &AnyRow) -> Result<TokenScope, StoreError> {
    let stored: String = row.try_get("scope")?;
    TokenScope::parse(&stored).ok_or_else(|| StoreError::Corrupt(format!("token scope {stored:?}")))
}
