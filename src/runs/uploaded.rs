//! A workload that sends a dataset uploaded to the workspace: the dataset is looked up in the workspace (another
//! workspace's is not found), and the server's record of it — its name, format and rows — replaces what the request
//! said, so a plan is checked against the rows the file really has and the report names what was sent.

use std::sync::Arc;

use crate::model::{Workload, WorkspaceId};
use crate::store::{Store, StoreError};

/// `workload` with its uploaded dataset's name, format and rows as `workspace` keeps them; unchanged when it sends
/// none.
pub async fn with_uploaded_dataset(
    store: &Store,
    workspace: WorkspaceId,
    mut workload: Workload,
) -> Result<Workload, StoreError> {
    if let Workload::Dataset { file, .. } = &mut workload {
        if let Some(id) = file.uploaded {
            let dataset = store.get_dataset(workspace, id).await?;
            (file.path, file.format, file.rows) = (dataset.name, dataset.format, dataset.rows);
        }
    }
    Ok(workload)
}

/// The text of the uploaded dataset `workload` sends, when it sends one.
pub async fn uploaded_text(
    store: &Store,
    workspace: WorkspaceId,
    workload: Option<&Workload>,
) -> Result<Option<Arc<str>>, StoreError> {
    match workload.and_then(Workload::uploaded_dataset) {
        Some(id) => Ok(Some(Arc::from(store.dataset_content(workspace, id).await?))),
        None => Ok(None),
    }
}
