//! Datasets uploaded to a workspace: the file's text, checked row by row before it is stored, and what was found in
//! it. A run reads the text when it starts; the list never does.

use std::sync::Arc;

use sqlx::any::AnyRow;
use sqlx::Row;

use crate::model::{DatasetFormat, DatasetId, Holding, Workload, WorkspaceId};
use crate::store::parse_id;
use crate::store::{delete_workspace_row, from_json, to_json, Store, StoreError};
use crate::workload::model::{LengthCounts, UploadedDataset};

const COLUMNS: &str = "id, name, format, rows_read, bytes, lengths, created_at";

/// The `lengths` column: each row's prompt and asked answer lengths, counted, and the rows skipped (what was found
/// beyond the rows; absent in datasets stored before rows could be skipped).
#[derive(serde::Serialize, serde::Deserialize)]
struct Lengths {
    prompt: LengthCounts,
    output: LengthCounts,
    #[serde(default)]
    skipped: u32,
}

/// A dataset read and checked, ready to store.
pub struct NewDataset<'a> {
    /// The file's name as uploaded.
    pub name: &'a str,
    /// How its rows are written.
    pub format: DatasetFormat,
    /// Its rows.
    pub rows: u32,
    /// Rows skipped, with nothing to send.
    pub skipped: u32,
    /// Each row's estimated prompt length, counted.
    pub prompt_tokens: LengthCounts,
    /// The answer lengths rows ask, counted.
    pub output_tokens: LengthCounts,
    /// The file's text.
    pub content: &'a str,
}

fn dataset_from_row(row: &AnyRow) -> Result<UploadedDataset, StoreError> {
    let lengths: Lengths = from_json(&row.try_get::<String, _>("lengths")?)?;
    Ok(UploadedDataset {
        id: parse_id(&row.try_get::<String, _>("id")?)?,
        name: row.try_get("name")?,
        format: DatasetFormat::parse(&row.try_get::<String, _>("format")?)
            .ok_or_else(|| StoreError::Corrupt("a dataset's format".into()))?,
        rows: u32::try_from(row.try_get::<i64, _>("rows_read")?).unwrap_or(u32::MAX),
        skipped: lengths.skipped,
        bytes: u64::try_from(row.try_get::<i64, _>("bytes")?).unwrap_or(0),
        prompt_tokens: lengths.prompt,
        output_tokens: lengths.output,
        created_at_ms: row.try_get("created_at")?,
    })
}

impl Store {
    /// Stores a checked dataset under a new id; `Invalid` when the workspace keeps [`Holding::Datasets`]' most
    /// (counted in the same transaction, so uploads at once cannot pass it).
    pub async fn create_dataset(
        &self,
        workspace: WorkspaceId,
        dataset: NewDataset<'_>,
        now_ms: i64,
    ) -> Result<UploadedDataset, StoreError> {
        let id = DatasetId::new_random();
        let (prompt, output, skipped) = (dataset.prompt_tokens, dataset.output_tokens, dataset.skipped);
        let lengths = to_json(&Lengths { prompt, output, skipped })?;
        let mut tx = self.begin_with_room(workspace, Holding::Datasets).await?;
        sqlx::query(&format!(
            "INSERT INTO datasets (workspace_id, {COLUMNS}, content) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)"
        ))
        .bind(workspace.to_string())
        .bind(id.to_string())
        .bind(dataset.name)
        .bind(dataset.format.as_str())
        .bind(i64::from(dataset.rows))
        .bind(i64::try_from(dataset.content.len()).unwrap_or(i64::MAX))
        .bind(lengths)
        .bind(now_ms)
        .bind(dataset.content)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        self.get_dataset(workspace, id).await
    }

    /// One uploaded dataset of `workspace`, without its text.
    pub async fn get_dataset(&self, workspace: WorkspaceId, id: DatasetId) -> Result<UploadedDataset, StoreError> {
        dataset_from_row(&self.workspace_row("datasets", COLUMNS, workspace, id).await?)
    }

    /// The text of an uploaded dataset of `workspace`.
    pub async fn dataset_content(&self, workspace: WorkspaceId, id: DatasetId) -> Result<String, StoreError> {
        Ok(self.workspace_row("datasets", "content", workspace, id).await?.try_get("content")?)
    }

    /// The uploaded datasets of `workspace`, by name, without their text.
    pub async fn list_datasets(&self, workspace: WorkspaceId) -> Result<Vec<UploadedDataset>, StoreError> {
        let rows = self.workspace_rows("datasets", COLUMNS, workspace, "name, id").await?;
        rows.iter().map(dataset_from_row).collect()
    }

    /// `workload` with its uploaded dataset's name, format and rows as `workspace` keeps them (another workspace's
    /// is not found), so a plan is checked against the rows the file really has and a report names what was sent;
    /// unchanged when it sends none.
    pub async fn with_uploaded_dataset(
        &self,
        workspace: WorkspaceId,
        mut workload: Workload,
    ) -> Result<Workload, StoreError> {
        if let Workload::Dataset { file, .. } = &mut workload {
            if let Some(id) = file.uploaded {
                let dataset = self.get_dataset(workspace, id).await?;
                (file.path, file.format, file.rows, file.skipped) =
                    (dataset.name, dataset.format, dataset.rows, dataset.skipped);
            }
        }
        Ok(workload)
    }

    /// The text of the uploaded dataset `workload` sends, when it sends one.
    pub async fn uploaded_text(
        &self,
        workspace: WorkspaceId,
        workload: Option<&Workload>,
    ) -> Result<Option<Arc<str>>, StoreError> {
        match workload.and_then(Workload::uploaded_dataset) {
            Some(id) => Ok(Some(Arc::from(self.dataset_content(workspace, id).await?))),
            None => Ok(None),
        }
    }

    /// Deletes an uploaded dataset (the runs that sent it keep what they sent; a saved workload naming it can no
    /// longer run).
    pub async fn delete_dataset(&self, workspace: WorkspaceId, id: DatasetId) -> Result<(), StoreError> {
        let mut tx = self.begin_write().await?;
        delete_workspace_row(&mut tx, "datasets", workspace, id).await?;
        tx.commit().await?;
        Ok(())
    }
}
