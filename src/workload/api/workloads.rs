//! Saved workloads: the workspace's workloads by name, saved, replaced and deleted (a run copies the workload it
//! sends, so neither changes a report).

use leptos::prelude::*;

use crate::error::AppError;
use crate::model::{Checked, WorkloadId};
use crate::wire::Json;
use crate::workload::model::{SavedWorkload, WorkloadChoice, WorkloadFields, WorkloadInput, WorkloadShelf};

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

/// `POST /api/workloads/page`, `{}`: what the workloads page shows — the saved workloads, each in words and in its
/// form's boxes, and the uploaded datasets with their length histograms — in one call.
#[server(prefix = "/api", endpoint = "workloads/page", input = Json, output = Json)]
pub async fn get_workload_shelf() -> Result<WorkloadShelf, AppError> {
    with_session(|state, session| async move {
        let workloads = state.store.list_workloads(session.workspace_id).await?;
        let datasets = state.store.list_datasets(session.workspace_id).await?;
        Ok(WorkloadShelf {
            workloads: workloads.into_iter().map(Into::into).collect(),
            datasets: datasets.iter().map(crate::workload::fragments::dataset_listing).collect(),
        })
    })
    .await
}

/// `POST /api/workloads/save`, `{"id": null | id, "input": WorkloadInput}`: saves a workload, or replaces one.
#[server(prefix = "/api", endpoint = "workloads/save", input = Json, output = Json)]
pub async fn save_workload(id: Option<WorkloadId>, input: Checked<WorkloadInput>) -> Result<SavedWorkload, AppError> {
    with_session(|state, session| save(state, session, id, input.0)).await
}

/// Saves `input` in the session's workspace, or replaces its workload `id`.
#[cfg(feature = "ssr")]
async fn save(
    state: crate::state::AppState,
    session: crate::auth::Session,
    id: Option<WorkloadId>,
    mut input: WorkloadInput,
) -> Result<SavedWorkload, AppError> {
    // An uploaded dataset as the workspace keeps it (another workspace's is not found).
    input.spec = state.store.with_uploaded_dataset(session.workspace_id, input.spec).await?;
    let valid = input.validate()?;
    let now = state.clock.now_ms();
    Ok(match id {
        None => state.store.create_workload(session.workspace_id, &valid, now).await?,
        Some(id) => state.store.update_workload(session.workspace_id, id, &valid, now).await?,
    })
}

/// `POST /api/workloads/save-form`, `{"id": null | id, "fields": WorkloadFields}`: the workload form's boxes as
/// typed, read into a workload here and saved (or replacing `id`) as `workloads/save` does; a refusal names the box
/// (`workload.input.min`). The form sends its text, so the browser carries no reader or writer of a workload.
#[server(prefix = "/api", endpoint = "workloads/save-form", input = Json, output = Json)]
pub async fn save_workload_form(
    id: Option<WorkloadId>,
    fields: Checked<WorkloadFields>,
) -> Result<WorkloadId, AppError> {
    with_session(|state, session| async move {
        let input = fields.0.read().map_err(AppError::Invalid)?;
        Ok(save(state, session, id, input).await?.id)
    })
    .await
}

/// `POST /api/workloads/delete`, `{"id"}`: deletes a saved workload (the runs that sent it keep their copy).
#[server(prefix = "/api", endpoint = "workloads/delete", input = Json, output = Json)]
pub async fn delete_workload(id: WorkloadId) -> Result<(), AppError> {
    with_session(|state, session| async move { Ok(state.store.delete_workload(session.workspace_id, id).await?) }).await
}
