//! The owner's contact address: a verification link's token (keyed hash, single use, short-lived) and, once it is
//! followed, the verified address on the workspace.

use sqlx::Row;

use crate::model::WorkspaceId;
use crate::store::{parse_id, Store, StoreError};

impl Store {
    /// Records a verification link for `email`, valid until `expires_at_ms`. Earlier unused links of the workspace
    /// stop working: only the newest address asked for can be confirmed.
    pub async fn insert_contact_verification(
        &self,
        workspace: WorkspaceId,
        email: &str,
        token_hash: &str,
        now_ms: i64,
        expires_at_ms: i64,
    ) -> Result<(), StoreError> {
        let mut tx = self.begin_write().await?;
        sqlx::query("DELETE FROM contact_verifications WHERE workspace_id = $1 AND used_at IS NULL")
            .bind(workspace.to_string())
            .execute(&mut *tx)
            .await?;
        sqlx::query(
            "INSERT INTO contact_verifications (token_hash, workspace_id, email, created_at, expires_at) \
             VALUES ($1, $2, $3, $4, $5)",
        )
        .bind(token_hash)
        .bind(workspace.to_string())
        .bind(email)
        .bind(now_ms)
        .bind(expires_at_ms)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(())
    }

    /// Uses a verification link once: the workspace's contact address becomes its address, verified now. `None`
    /// when the link is unknown, used or expired. One conditional UPDATE claims it, so two clicks confirm once.
    pub async fn confirm_contact(
        &self,
        token_hash: &str,
        now_ms: i64,
    ) -> Result<Option<(WorkspaceId, String)>, StoreError> {
        let mut tx = self.begin_write().await?;
        let claimed = sqlx::query(
            "UPDATE contact_verifications SET used_at = $1 WHERE token_hash = $2 AND used_at IS NULL AND expires_at > $1",
        )
        .bind(now_ms)
        .bind(token_hash)
        .execute(&mut *tx)
        .await?
        .rows_affected();
        if claimed != 1 {
            return Ok(None);
        }
        let row = sqlx::query("SELECT workspace_id, email FROM contact_verifications WHERE token_hash = $1")
            .bind(token_hash)
            .fetch_one(&mut *tx)
            .await?;
        let (workspace, email): (String, String) = (row.try_get("workspace_id")?, row.try_get("email")?);
        sqlx::query("UPDATE workspaces SET contact_email = $1, contact_verified_at = $2 WHERE id = $3")
            .bind(&email)
            .bind(now_ms)
            .bind(&workspace)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(Some((parse_id(&workspace)?, email)))
    }

    /// The workspace owner's verified contact address, if any.
    pub async fn owner_contact(&self, workspace: WorkspaceId) -> Result<Option<String>, StoreError> {
        let row = sqlx::query("SELECT contact_email FROM workspaces WHERE id = $1 AND contact_verified_at IS NOT NULL")
            .bind(workspace.to_string())
            .fetch_optional(&self.pool)
            .await?;
        Ok(row.map(|r| r.try_get::<Option<String>, _>("contact_email")).transpose()?.flatten())
    }

    /// Forgets the contact address (alert e-mail to the owner stops).
    pub async fn clear_owner_contact(&self, workspace: WorkspaceId) -> Result<(), StoreError> {
        sqlx::query("UPDATE workspaces SET contact_email = NULL, contact_verified_at = NULL WHERE id = $1")
            .bind(workspace.to_string())
            .execute(&self.pool)
            .await?;
        Ok(())
    }
}
