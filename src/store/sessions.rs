//! One-time login tokens and browser sessions. Only keyed hashes of tokens are stored.

use sqlx::Row;

use super::workspaces::parse_id;
use super::{Store, StoreError};
use crate::model::WorkspaceId;

/// A live session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionRecord {
    /// The workspace the session acts for.
    pub workspace_id: WorkspaceId,
    /// When it stops being accepted, unix ms.
    pub expires_at_ms: i64,
}

impl Store {
    /// Stores a login token's hash, valid until `expires_at_ms`.
    pub async fn insert_login_token(
        &self,
        workspace: WorkspaceId,
        token_hash: &str,
        now_ms: i64,
        expires_at_ms: i64,
    ) -> Result<(), StoreError> {
        self.insert_token("login_tokens", workspace, token_hash, now_ms, expires_at_ms).await
    }

    /// Marks an unused, unexpired login token as used and returns its workspace; `None` when the token is
    /// unknown, used or expired. The single conditional UPDATE makes a token usable exactly once, even when two
    /// replicas receive it at the same moment.
    pub async fn consume_login_token(&self, token_hash: &str, now_ms: i64) -> Result<Option<WorkspaceId>, StoreError> {
        let claimed = sqlx::query(
            "UPDATE login_tokens SET used_at = $1 WHERE token_hash = $2 AND used_at IS NULL AND expires_at > $1",
        )
        .bind(now_ms)
        .bind(token_hash)
        .execute(&self.pool)
        .await?
        .rows_affected();
        if claimed != 1 {
            return Ok(None);
        }
        let row = sqlx::query("SELECT workspace_id FROM login_tokens WHERE token_hash = $1")
            .bind(token_hash)
            .fetch_one(&self.pool)
            .await?;
        Ok(Some(parse_id(&row.try_get::<String, _>("workspace_id")?)?))
    }

    /// Stores a new session.
    pub async fn insert_session(
        &self,
        workspace: WorkspaceId,
        token_hash: &str,
        now_ms: i64,
        expires_at_ms: i64,
    ) -> Result<(), StoreError> {
        self.insert_token("sessions", workspace, token_hash, now_ms, expires_at_ms).await
    }

    /// The session with this token hash, if it exists and has not expired.
    pub async fn find_session(&self, token_hash: &str, now_ms: i64) -> Result<Option<SessionRecord>, StoreError> {
        let row =
            sqlx::query("SELECT workspace_id, expires_at FROM sessions WHERE token_hash = $1 AND expires_at > $2")
                .bind(token_hash)
                .bind(now_ms)
                .fetch_optional(&self.pool)
                .await?;
        row.map(|row| {
            Ok(SessionRecord {
                workspace_id: parse_id(&row.try_get::<String, _>("workspace_id")?)?,
                expires_at_ms: row.try_get("expires_at")?,
            })
        })
        .transpose()
    }

    /// Ends a session (logout). Unknown hashes are ignored.
    pub async fn delete_session(&self, token_hash: &str) -> Result<(), StoreError> {
        sqlx::query("DELETE FROM sessions WHERE token_hash = $1").bind(token_hash).execute(&self.pool).await?;
        Ok(())
    }

    /// Ends every browser session of a workspace ("sign out everywhere"); how many ended.
    pub async fn delete_sessions_of(&self, workspace: WorkspaceId) -> Result<u64, StoreError> {
        let ended = sqlx::query("DELETE FROM sessions WHERE workspace_id = $1")
            .bind(workspace.to_string())
            .execute(&self.pool)
            .await?;
        Ok(ended.rows_affected())
    }

    /// Deletes expired sessions and login tokens; returns how many rows went.
    pub async fn purge_expired_auth(&self, now_ms: i64) -> Result<u64, StoreError> {
        let sessions =
            sqlx::query("DELETE FROM sessions WHERE expires_at <= $1").bind(now_ms).execute(&self.pool).await?;
        let tokens =
            sqlx::query("DELETE FROM login_tokens WHERE expires_at <= $1").bind(now_ms).execute(&self.pool).await?;
        let nonces =
            sqlx::query("DELETE FROM siwe_nonces WHERE expires_at <= $1").bind(now_ms).execute(&self.pool).await?;
        let links = sqlx::query("DELETE FROM contact_verifications WHERE expires_at <= $1")
            .bind(now_ms)
            .execute(&self.pool)
            .await?;
        let buckets = self.forget_idle_rate_buckets(now_ms).await?;
        Ok(sessions.rows_affected() + tokens.rows_affected() + nonces.rows_affected() + links.rows_affected() + buckets)
    }

    /// Both token tables have the same shape; `table` is one of their two names, never user input.
    async fn insert_token(
        &self,
        table: &'static str,
        workspace: WorkspaceId,
        token_hash: &str,
        now_ms: i64,
        expires_at_ms: i64,
    ) -> Result<(), StoreError> {
        let sql =
            format!("INSERT INTO {table} (token_hash, workspace_id, created_at, expires_at) VALUES ($1, $2, $3, $4)");
        sqlx::query(&sql)
            .bind(token_hash)
            .bind(workspace.to_string())
            .bind(now_ms)
            .bind(expires_at_ms)
            .execute(&self.pool)
            .await?;
        Ok(())
    }
}
