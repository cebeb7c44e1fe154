//! Reusable view pieces. Each takes plain data (view-models) and renders.

mod connection_test_panel;
mod connector_form;
mod document_export;
mod job_frame;
mod job_list;
mod layout;
mod save_file;
mod server_part;
mod submit_row;

pub use connection_test_panel::ConnectionTestPanel;
pub use connector_form::ConnectorForm;
pub use document_export::{Document, DocumentExportButtons};
pub use job_frame::{JobFrame, JobProgress, JobWords, ProgressIds};
pub use job_list::JobList;
pub use layout::{alert_badge, ErrorBox, Layout, PublicLayout};
pub use save_file::save_file;
pub use server_part::ServerPart;
pub use submit_row::{invalid, number, SubmitRow};
