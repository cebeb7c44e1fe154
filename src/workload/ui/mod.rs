//! The workload feature's pages and parts: the workloads page (`page`), the form that saves a workload
//! (`workload_form`, with its length fields), the picker every job's form shows (`workload_picker`) and the
//! uploaded datasets' panel (`datasets_panel`).

mod datasets_panel;
mod length_fields;
mod page;
mod workload_form;
mod workload_picker;

pub use datasets_panel::{DatasetsPanel, Shelf};
pub use page::WorkloadsPage;
pub use workload_form::WorkloadForm;
pub use workload_picker::{picked_workload, prompts_and_iterations, WorkloadPicker};
