//! Reusable view pieces. Each takes plain data (view-models) and renders.

mod connection_test_panel;
mod connector_form;
mod datasets_panel;
mod document_export;
mod export_buttons;
mod job_frame;
mod job_list;
mod layout;
mod length_fields;
mod results_table;
mod server_part;
mod share_controls;
mod submit_row;
mod workload_form;
mod workload_picker;

pub use connection_test_panel::ConnectionTestPanel;
pub use connector_form::ConnectorForm;
pub use datasets_panel::{Datasets, DatasetsPanel};
pub use document_export::{Document, DocumentExportButtons};
pub use export_buttons::ExportButtons;
pub use job_frame::{JobFrame, JobProgress, JobWords, ProgressIds};
pub use job_list::JobList;
pub use layout::{alert_badge, ErrorBox, Layout, PublicLayout};
pub use results_table::ResultsTable;
pub use server_part::ServerPart;
pub use share_controls::ShareControls;
pub use submit_row::{invalid, number, SubmitRow};
pub use workload_form::WorkloadForm;
pub use workload_picker::{picked_workload, prompts_and_iterations, WorkloadPicker};
