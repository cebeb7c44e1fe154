//! The workload feature's server functions: saved workloads (`workloads`) and uploaded datasets (`datasets`). An
//! upload itself is a route of its own (`server::routes::dataset_upload`): a file is not JSON.

pub mod datasets;
pub mod workloads;

pub use datasets::{delete_dataset, list_datasets};
pub use workloads::{delete_workload, list_workloads, save_workload, workload_choices};
