//! Uploaded datasets: the workspace's datasets listed with their rows and length histograms, and deleted. An
//! upload is `POST /api/datasets/upload?name=FILE` with the file as the body (`server::routes::dataset_upload`):
//! a file is not JSON.

use leptos::prelude::*;

use crate::error::AppError;
use crate::model::DatasetId;
use crate::wire::Json;
use crate::workload::model::DatasetListing;

#[cfg(feature = "ssr")]
use crate::api::context::with_session;

/// `POST /api/datasets/list`, `{}`: the workspace's uploaded datasets by name, each with its length histogram.
#[server(prefix = "/api", endpoint = "datasets/list", input = Json, output = Json)]
pub async fn list_datasets() -> Result<Vec<DatasetListing>, AppError> {
    with_session(|state, session| async move {
        let datasets = state.store.list_datasets(session.workspace_id).await?;
        Ok(datasets.iter().map(crate::workload::fragments::dataset_listing).collect())
    })
    .await
}

/// `POST /api/datasets/delete`, `{"id"}`: deletes an uploaded dataset (the runs that sent it keep their reports; a
/// saved workload naming it can no longer run).
#[server(prefix = "/api", endpoint = "datasets/delete", input = Json, output = Json)]
pub async fn delete_dataset(id: DatasetId) -> Result<(), AppError> {
    with_session(|state, session| async move { Ok(state.store.delete_dataset(session.workspace_id, id).await?) }).await
}
