//! Share links of reports: at most one per report, stored as a keyed hash of its token.

use sqlx::Row;

use super::workspaces::parse_id;
use super::{Store, StoreError};
use crate::model::{RunId, WorkspaceId};

/// What a public read needs to check a presented token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShareRecord {
    /// The report's workspace.
    pub workspace_id: WorkspaceId,
    /// The keyed hash of the token.
    pub token_hash: String,
}

impl Store {
    /// Shares a report of `workspace` under a new token hash, replacing any earlier link (which stops working).
    /// `NotFound` when the report is not in `workspace`.
    pub async fn share_report(
        &self,
        workspace: WorkspaceId,
        run: RunId,
        token_hash: &str,
        now_ms: i64,
    ) -> Result<(), StoreError> {
        let mut tx = self.begin_write().await?;
        let owned = sqlx::query("SELECT 1 FROM runs WHERE id = $1 AND workspace_id = $2")
            .bind(run.to_string())
            .bind(workspace.to_string())
            .fetch_optional(&mut *tx)
            .await?;
        if owned.is_none() {
            return Err(StoreError::NotFound);
        }
        sqlx::query("DELETE FROM report_shares WHERE run_id = $1").bind(run.to_string()).execute(&mut *tx).await?;
        sqlx::query("INSERT INTO report_shares (run_id, workspace_id, token_hash, created_at) VALUES ($1, $2, $3, $4)")
            .bind(run.to_string())
            .bind(workspace.to_string())
            .bind(token_hash)
            .bind(now_ms)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(())
    }

    /// Revokes the share link of a report of `workspace`; `false` when it had none.
    pub async fn revoke_share(&self, workspace: WorkspaceId, run: RunId) -> Result<bool, StoreError> {
        let removed = sqlx::query("DELETE FROM report_shares WHERE run_id = $1 AND workspace_id = $2")
            .bind(run.to_string())
            .bind(workspace.to_string())
            .execute(&self.pool)
            .await?
            .rows_affected();
        Ok(removed > 0)
    }

    /// Since when a report of `workspace` is shared (unix ms), if it is.
    pub async fn shared_since(&self, workspace: WorkspaceId, run: RunId) -> Result<Option<i64>, StoreError> {
        let row = sqlx::query("SELECT created_at FROM report_shares WHERE run_id = $1 AND workspace_id = $2")
            .bind(run.to_string())
            .bind(workspace.to_string())
            .fetch_optional(&self.pool)
            .await?;
        Ok(row.map(|r| r.try_get("created_at")).transpose()?)
    }

    /// The share of a report, whoever owns it: for checking a token presented on the public route.
    pub async fn share_of(&self, run: RunId) -> Result<Option<ShareRecord>, StoreError> {
        let row = sqlx::query("SELECT workspace_id, token_hash FROM report_shares WHERE run_id = $1")
            .bind(run.to_string())
            .fetch_optional(&self.pool)
            .await?;
        row.map(|r| {
            Ok(ShareRecord {
                workspace_id: parse_id(&r.try_get::<String, _>("workspace_id")?)?,
                token_hash: r.try_get("token_hash")?,
            })
        })
        .transpose()
    }
}
