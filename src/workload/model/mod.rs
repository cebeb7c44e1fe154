//! A workload saved under a name in a workspace (`saved`), and a dataset uploaded to it (`uploaded`): what the
//! workloads page lists and the forms offer. Pure, in the browser build too.

mod saved;
mod uploaded;

pub use saved::{SavedWorkload, WorkloadChoice, WorkloadInput, MAX_WORKLOAD_NAME_CHARS};
pub use uploaded::{length_counts, DatasetChoice, DatasetListing, LengthCounts, UploadedDataset, MAX_DATASET_BYTES};
