//! A workload saved under a name in a workspace (`saved`), and a dataset uploaded to it (`uploaded`): what the
//! workloads page lists and the forms offer. Pure, in the browser build too.

mod fields;
mod saved;
mod uploaded;

pub use fields::{LengthText, ThinkText, WorkloadFields};
pub use saved::{
    EditableWorkload, SavedWorkload, WorkloadChoice, WorkloadInput, WorkloadShelf, MAX_WORKLOAD_NAME_CHARS,
};
pub use uploaded::{length_counts, DatasetChoice, DatasetListing, LengthCounts, UploadedDataset, MAX_DATASET_BYTES};
