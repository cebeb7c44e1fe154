//! The workload feature's server functions: saved workloads (`workloads`) and uploaded datasets (`datasets`). An
//! upload itself is a route of its own (`server::routes::dataset_upload`): a file is not JSON.

pub mod datasets;
pub mod workloads;

pub use datasets::{delete_dataset, list_datasets};
pub use workloads::{
    delete_workload, get_workload_shelf, list_workloads, save_workload, save_workload_form, workload_choices,
};
