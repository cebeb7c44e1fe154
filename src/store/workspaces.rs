//! Workspaces: the unit of isolation, one per owner identity.

use sqlx::Row;

use super::{found, Store, StoreError};
use crate::model::WorkspaceId;

/// The owner identity of the single-user install, before wallet login adds others.
pub const LOCAL_OWNER: &str = "local:owner";

/// A workspace row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Workspace {
    /// Its id.
    pub id: WorkspaceId,
    /// The owner identity (`local:owner`, or a wallet's `<lowercase address>@wallet.local`).
    pub owner: String,
    /// Display name.
    pub name: String,
}

impl Store {
    /// The workspace of `owner`, created on first use. Returns it and whether it was created now.
    pub async fn ensure_workspace(
        &self,
        owner: &str,
        name: &str,
        now_ms: i64,
    ) -> Result<(Workspace, bool), StoreError> {
        let id = WorkspaceId::new_random();
        let inserted = sqlx::query(
            "INSERT INTO workspaces (id, owner, name, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT (owner) DO NOTHING",
        )
        .bind(id.to_string())
        .bind(owner)
        .bind(name)
        .bind(now_ms)
        .execute(&self.pool)
        .await?
        .rows_affected()
            == 1;
        let row = sqlx::query("SELECT id, owner, name FROM workspaces WHERE owner = $1")
            .bind(owner)
            .fetch_one(&self.pool)
            .await?;
        Ok((workspace_row(&row)?, inserted))
    }

    /// Renames a workspace (the name is already validated).
    pub async fn rename_workspace(&self, id: WorkspaceId, name: &str) -> Result<(), StoreError> {
        let renamed = sqlx::query("UPDATE workspaces SET name = $1 WHERE id = $2")
            .bind(name)
            .bind(id.to_string())
            .execute(&self.pool)
            .await?
            .rows_affected();
        found(renamed)
    }

    /// The workspace of `owner`, if it has one.
    pub async fn workspace_of_owner(&self, owner: &str) -> Result<Option<Workspace>, StoreError> {
        let row = sqlx::query("SELECT id, owner, name FROM workspaces WHERE owner = $1")
            .bind(owner)
            .fetch_optional(&self.pool)
            .await?;
        row.as_ref().map(workspace_row).transpose()
    }

    /// The workspace with this id.
    pub async fn get_workspace(&self, id: WorkspaceId) -> Result<Workspace, StoreError> {
        let row = sqlx::query("SELECT id, owner, name FROM workspaces WHERE id = $1")
            .bind(id.to_string())
            .fetch_optional(&self.pool)
            .await?
            .ok_or(StoreError::NotFound)?;
        workspace_row(&row)
    }
}

fn workspace_row(row: &sqlx::any::AnyRow) -> Result<Workspace, StoreError> {
    Ok(Workspace {
        id: parse_id(&row.try_get::<String, _>("id")?)?,
        owner: row.try_get("owner")?,
        name: row.try_get("name")?,
    })
}

pub(crate) fn parse_id<T: std::str::FromStr>(text: &str) -> Result<T, StoreError> {
    text.parse().map_err(|_| StoreError::Corrupt(format!("bad id {text:?}")))
}
