//! Room for one more: a write transaction that has counted what a workspace keeps of a kind and found it below
//! the kind's limit (`model::Holding`). The caller inserts in the same transaction and commits, so saves at once
//! cannot pass the limit together: on PostgreSQL the workspace's row is locked first (as a run's start does), on
//! SQLite the transaction holds the one writer's lock from its start.

use sqlx::Row;

use super::{Backend, Store, StoreError};
use crate::model::{Holding, WorkspaceId};

/// What counts a kind's rows of a workspace (`$1`).
fn count_sql(kind: Holding) -> String {
    format!("SELECT COUNT(*) AS n FROM {} WHERE workspace_id = $1", table(kind))
}

/// The table each kind is kept in.
fn table(kind: Holding) -> &'static str {
    match kind {
        Holding::Connectors => "connectors",
        Holding::BenchmarkSets => "benchmark_sets",
        Holding::Workloads => "saved_workloads",
        Holding::Schedules => "guard_schedules",
        Holding::Datasets => "datasets",
        Holding::ApiTokens => "api_tokens",
    }
}

impl Store {
    /// A write transaction with room for one more `kind` in `workspace`; `Invalid`, naming the limit, when it is
    /// full (nothing written).
    pub(crate) async fn begin_with_room(
        &self,
        workspace: WorkspaceId,
        kind: Holding,
    ) -> Result<sqlx::Transaction<'static, sqlx::Any>, StoreError> {
        let mut tx = self.begin_write().await?;
        if self.backend == Backend::Postgres {
            sqlx::query("SELECT id FROM workspaces WHERE id = $1 FOR UPDATE")
                .bind(workspace.to_string())
                .fetch_optional(&mut *tx)
                .await?;
        }
        let held: i64 =
            sqlx::query(&count_sql(kind)).bind(workspace.to_string()).fetch_one(&mut *tx).await?.try_get("n")?;
        kind.admits_one_more(u64::try_from(held).unwrap_or(0))?;
        Ok(tx)
    }

    /// How many of `kind` `workspace` keeps: what a cheap early refusal reads before expensive work (the insert
    /// counts again in its transaction).
    pub async fn count_held(&self, workspace: WorkspaceId, kind: Holding) -> Result<u64, StoreError> {
        let held: i64 =
            sqlx::query(&count_sql(kind)).bind(workspace.to_string()).fetch_one(&self.pool).await?.try_get("n")?;
        Ok(u64::try_from(held).unwrap_or(0))
    }
}
