//! Benchmark sets of a workspace. A set a schedule runs cannot be deleted (the schedule would lose its prompts);
//! its baselines go with it.

use sqlx::any::AnyRow;
use sqlx::Row;

use crate::guard::model::{BenchmarkSet, BenchmarkSetInput};
use crate::model::{BenchmarkSetId, Holding, ValidationError, WorkspaceId};
use crate::store::parse_id;
use crate::store::{delete_workspace_row, found, from_json, to_json, Store, StoreError};

const COLUMNS: &str = "id, name, prompts, system_prompt, max_tokens, created_at, updated_at";

fn set_from_row(row: &AnyRow) -> Result<BenchmarkSet, StoreError> {
    Ok(BenchmarkSet {
        id: parse_id(&row.try_get::<String, _>("id")?)?,
        name: row.try_get("name")?,
        prompts: from_json(&row.try_get::<String, _>("prompts")?)?,
        system_prompt: row.try_get("system_prompt")?,
        max_tokens: u32::try_from(row.try_get::<i64, _>("max_tokens")?)
            .map_err(|e| StoreError::Corrupt(e.to_string()))?,
        created_at_ms: row.try_get("created_at")?,
        updated_at_ms: row.try_get("updated_at")?,
    })
}

impl Store {
    /// Creates a set from validated input; `Invalid` when the workspace keeps [`Holding::BenchmarkSets`]' most.
    pub async fn create_set(
        &self,
        workspace: WorkspaceId,
        input: &BenchmarkSetInput,
        now_ms: i64,
    ) -> Result<BenchmarkSet, StoreError> {
        let id = BenchmarkSetId::new_random();
        let mut tx = self.begin_with_room(workspace, Holding::BenchmarkSets).await?;
        sqlx::query(&format!(
            "INSERT INTO benchmark_sets (workspace_id, {COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $7)"
        ))
        .bind(workspace.to_string())
        .bind(id.to_string())
        .bind(&input.name)
        .bind(to_json(&input.prompts)?)
        .bind(input.system_prompt.clone())
        .bind(i64::from(input.max_tokens))
        .bind(now_ms)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        self.get_set(workspace, id).await
    }

    /// Replaces a set's fields with validated input.
    pub async fn update_set(
        &self,
        workspace: WorkspaceId,
        id: BenchmarkSetId,
        input: &BenchmarkSetInput,
        now_ms: i64,
    ) -> Result<BenchmarkSet, StoreError> {
        found(sqlx::query(
            "UPDATE benchmark_sets SET name = $1, prompts = $2, system_prompt = $3, max_tokens = $4, updated_at = $5 \
             WHERE id = $6 AND workspace_id = $7",
        )
        .bind(&input.name)
        .bind(to_json(&input.prompts)?)
        .bind(input.system_prompt.clone())
        .bind(i64::from(input.max_tokens))
        .bind(now_ms)
        .bind(id.to_string())
        .bind(workspace.to_string())
        .execute(&self.pool)
        .await?
        .rows_affected())?;
        self.get_set(workspace, id).await
    }

    /// One set of `workspace`.
    pub async fn get_set(&self, workspace: WorkspaceId, id: BenchmarkSetId) -> Result<BenchmarkSet, StoreError> {
        set_from_row(&self.workspace_row("benchmark_sets", COLUMNS, workspace, id).await?)
    }

    /// The sets of `workspace`, by name.
    pub async fn list_sets(&self, workspace: WorkspaceId) -> Result<Vec<BenchmarkSet>, StoreError> {
        let rows = self.workspace_rows("benchmark_sets", COLUMNS, workspace, "name, id").await?;
        rows.iter().map(set_from_row).collect()
    }

    /// Deletes a set and its baselines; refused while a schedule runs it.
    pub async fn delete_set(&self, workspace: WorkspaceId, id: BenchmarkSetId) -> Result<(), StoreError> {
        let mut tx = self.begin_write().await?;
        let users =
            sqlx::query("SELECT name FROM guard_schedules WHERE set_id = $1 AND workspace_id = $2 ORDER BY name")
                .bind(id.to_string())
                .bind(workspace.to_string())
                .fetch_all(&mut *tx)
                .await?;
        if !users.is_empty() {
            let names: Vec<String> = users.iter().map(|r| r.try_get("name")).collect::<Result<_, _>>()?;
            return Err(StoreError::Invalid(ValidationError::new(
                "id",
                format!("schedules run this set ({}): delete them or give them another set first", names.join(", ")),
            )));
        }
        sqlx::query("DELETE FROM guard_baselines WHERE set_id = $1 AND workspace_id = $2")
            .bind(id.to_string())
            .bind(workspace.to_string())
            .execute(&mut *tx)
            .await?;
        delete_workspace_row(&mut tx, "benchmark_sets", workspace, id).await?;
        tx.commit().await?;
        Ok(())
    }
}
