//! Reusable view pieces. Each takes plain data (view-models) and renders.

mod ab_form;
mod account_panel;
mod api_tokens_panel;
mod connection_test_panel;
mod connector_form;
mod contact_panel;
mod document_export;
mod export_buttons;
mod layout;
mod probe_panel;
mod repeated_panel;
mod results_table;
mod schedule_form;
mod server_part;
mod share_controls;
mod submit_row;
mod sweep_form;

pub use ab_form::AbForm;
pub use account_panel::AccountPanel;
pub use api_tokens_panel::ApiTokensPanel;
pub use connection_test_panel::ConnectionTestPanel;
pub use connector_form::ConnectorForm;
pub use contact_panel::ContactPanel;
pub use document_export::{Document, DocumentExportButtons};
pub use export_buttons::ExportButtons;
pub use layout::{alert_badge, ErrorBox, Layout, PublicLayout};
pub use probe_panel::ServerProbe;
pub use repeated_panel::RepeatedCompare;
pub use results_table::ResultsTable;
pub use schedule_form::ScheduleForm;
pub use server_part::ServerPart;
pub use share_controls::ShareControls;
pub use submit_row::{invalid, number, SubmitRow};
pub use sweep_form::SweepForm;
