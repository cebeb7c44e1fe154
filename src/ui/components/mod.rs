//! Reusable view pieces. Each takes plain data (view-models) and renders.

mod connection_test_panel;
mod connector_form;
mod datasets_panel;
mod document_export;
mod job_frame;
mod job_list;
mod layout;
mod length_fields;
mod save_file;
mod server_part;
mod submit_row;
mod workload_form;
mod workload_picker;

pub use connection_test_panel::ConnectionTestPanel;
pub use connector_form::ConnectorForm;
pub use datasets_panel::{Datasets, DatasetsPanel};
pub use document_export::{Document, DocumentExportButtons};
pub use job_frame::{JobFrame, JobProgress, JobWords, ProgressIds};
pub use job_list::JobList;
pub use layout::{alert_badge, ErrorBox, Layout, PublicLayout};
pub use save_file::save_file;
pub use server_part::ServerPart;
pub use submit_row::{invalid, number, SubmitRow};
pub use workload_form::WorkloadForm;
pub use workload_picker::{picked_workload, prompts_and_iterations, WorkloadPicker};
