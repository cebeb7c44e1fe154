//! Saved workloads: the workspace's workloads by name, saved, replaced and deleted (a run copies the workload it
//! sends, so neither changes a report).

use leptos::prelude::*;

use crate::error::AppError;
use crate::model::{Checked, WorkloadId};
use crate::wire::Json;
use crate::workload::model::{SavedWorkload, WorkloadChoice, WorkloadInput};

#[cfg(feature = "ssr")]
use crate::api::context::with_session;

/// `POST /api/workloads/list`, `{}`: the workspace's saved workloads by name.
#[server(prefix = "/api", endpoint = "workloads/list", input = Json, output = Json)]
pub async fn list_workloads() -> Result<Vec<SavedWorkload>, AppError> {
    with_session(|state, session| async move { Ok(state.store.list_workloads(session.workspace_id).await?) }).await
}

/// `POST /api/workloads/choices`, `{}`: the workspace's saved workloads by name, each in words (what the forms
/// offer).
#[server(prefix = "/api", endpoint = "workloads/choices", input = Json, output = Json)]
pub async fn workload_choices() -> Result<Vec<WorkloadChoice>, AppError> {
    with_session(|state, session| async move {
        Ok(state.store.list_workloads(session.workspace_id).await?.into_iter().map(WorkloadChoice::from).collect())
    })
    .await
}

/// `POST /api/workloads/save`, `{"id": null | id, "input": WorkloadInput}`: saves a workload, or replaces one.
#[server(prefix = "/api", endpoint = "workloads/save", input = Json, output = Json)]
pub async fn save_workload(id: Option<WorkloadId>, input: Checked<WorkloadInput>) -> Result<SavedWorkload, AppError> {
    with_session(|state, session| async move {
        let mut input = input.0;
        // An uploaded dataset as the workspace keeps it (another workspace's is not found).
        input.spec = state.store.with_uploaded_dataset(session.workspace_id, input.spec).await?;
        let valid = input.validate()?;
        let now = state.clock.now_ms();
        Ok(match id {
            None => state.store.create_workload(session.workspace_id, &valid, now).await?,
            Some(id) => state.store.update_workload(session.workspace_id, id, &valid, now).await?,
        })
    })
    .await
}

/// `POST /api/workloads/delete`, `{"id"}`: deletes a saved workload (the runs that sent it keep their copy).
#[server(prefix = "/api", endpoint = "workloads/delete", input = Json, output = Json)]
pub async fn delete_workload(id: WorkloadId) -> Result<(), AppError> {
    with_session(|state, session| async move { Ok(state.store.delete_workload(session.workspace_id, id).await?) }).await
}
