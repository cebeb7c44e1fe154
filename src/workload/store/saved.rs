//! Workloads saved in a workspace. A run copies the workload it sends into its plan, so deleting or changing a
//! saved one changes no report.

use sqlx::any::AnyRow;
use sqlx::Row;

use crate::model::{AsksForWorkload, Holding, ValidationError, Workload, WorkloadId, WorkspaceId};
use crate::store::parse_id;
use crate::store::{delete_workspace_row, found, from_json, to_json, Store, StoreError};
use crate::workload::model::{SavedWorkload, WorkloadInput};

const COLUMNS: &str = "id, name, spec, created_at, updated_at";

fn workload_from_row(row: &AnyRow) -> Result<SavedWorkload, StoreError> {
    Ok(SavedWorkload {
        id: parse_id(&row.try_get::<String, _>("id")?)?,
        name: row.try_get("name")?,
        spec: from_json(&row.try_get::<String, _>("spec")?)?,
        created_at_ms: row.try_get("created_at")?,
        updated_at_ms: row.try_get("updated_at")?,
    })
}

impl Store {
    /// Saves a validated workload under a new id; `Invalid` when the workspace keeps [`Holding::Workloads`]' most.
    pub async fn create_workload(
        &self,
        workspace: WorkspaceId,
        input: &WorkloadInput,
        now_ms: i64,
    ) -> Result<SavedWorkload, StoreError> {
        let id = WorkloadId::new_random();
        let spec = to_json(&input.spec)?;
        let mut tx = self.begin_with_room(workspace, Holding::Workloads).await?;
        sqlx::query(&format!("INSERT INTO saved_workloads (workspace_id, {COLUMNS}) VALUES ($1, $2, $3, $4, $5, $5)"))
            .bind(workspace.to_string())
            .bind(id.to_string())
            .bind(&input.name)
            .bind(spec)
            .bind(now_ms)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        self.get_workload(workspace, id).await
    }

    /// Replaces a saved workload with validated input.
    pub async fn update_workload(
        &self,
        workspace: WorkspaceId,
        id: WorkloadId,
        input: &WorkloadInput,
        now_ms: i64,
    ) -> Result<SavedWorkload, StoreError> {
        found(
            sqlx::query(
                "UPDATE saved_workloads SET name = $1, spec = $2, updated_at = $3 WHERE id = $4 AND workspace_id = $5",
            )
            .bind(&input.name)
            .bind(to_json(&input.spec)?)
            .bind(now_ms)
            .bind(id.to_string())
            .bind(workspace.to_string())
            .execute(&self.pool)
            .await?
            .rows_affected(),
        )?;
        self.get_workload(workspace, id).await
    }

    /// One saved workload of `workspace`.
    pub async fn get_workload(&self, workspace: WorkspaceId, id: WorkloadId) -> Result<SavedWorkload, StoreError> {
        workload_from_row(&self.workspace_row("saved_workloads", COLUMNS, workspace, id).await?)
    }

    /// The saved workloads of `workspace`, by name.
    pub async fn list_workloads(&self, workspace: WorkspaceId) -> Result<Vec<SavedWorkload>, StoreError> {
        let rows = self.workspace_rows("saved_workloads", COLUMNS, workspace, "name, id").await?;
        rows.iter().map(workload_from_row).collect()
    }

    /// The workload a request asks for: the one it `given`, or the `saved` one it names (copied, so that a report
    /// keeps what was sent; never both: `Invalid`), with its uploaded dataset as `workspace` keeps it.
    async fn requested_workload(
        &self,
        workspace: WorkspaceId,
        given: Option<Workload>,
        saved: Option<WorkloadId>,
    ) -> Result<Option<Workload>, StoreError> {
        let workload = match (given, saved) {
            (Some(_), Some(_)) => {
                let reason = "name a saved workload or give one, not both";
                return Err(StoreError::Invalid(ValidationError::new("workloadId", reason)));
            }
            (None, Some(id)) => Some(self.get_workload(workspace, id).await?.spec),
            (given, None) => given,
        };
        match workload {
            Some(workload) => Ok(Some(self.with_uploaded_dataset(workspace, workload).await?)),
            None => Ok(None),
        }
    }

    /// Resolves the workload `request` asks for, in place: the saved one it names copied in (a report keeps what was
    /// sent), an uploaded dataset's rows as `workspace` keeps them. The one step every job that sends a workload (a
    /// run, a sweep, an A/B test) starts with; once the plan is valid, the job refuses a workload that would make
    /// the server read a file it names (`Workload::refuse_a_file_on_a_server`), so a plan's own error comes first.
    pub async fn resolve_workload(
        &self,
        workspace: WorkspaceId,
        request: &mut impl AsksForWorkload,
    ) -> Result<(), StoreError> {
        let (given, saved) = request.take_workload_asked();
        request.put_workload(self.requested_workload(workspace, given, saved).await?);
        Ok(())
    }

    /// Deletes a saved workload (the runs that sent it keep their copy).
    pub async fn delete_workload(&self, workspace: WorkspaceId, id: WorkloadId) -> Result<(), StoreError> {
        let mut tx = self.begin_write().await?;
        delete_workspace_row(&mut tx, "saved_workloads", workspace, id).await?;
        tx.commit().await?;
        Ok(())
    }
}
