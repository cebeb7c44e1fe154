//! A run's pages: the list, the form of a new run, a run's page (live progress, then the report with its table,
//! exports and share controls), two runs compared, and a share link's page; and what they share: the results table,
//! the export buttons and where a report page reads what its view leaves out.

mod compare;
mod export_buttons;
mod list;
mod report_source;
mod results_table;
mod run_new;
mod run_view;
mod share;
mod share_controls;

pub use compare::ComparePage;
pub use export_buttons::ExportButtons;
pub use list::RunsPage;
pub use report_source::ReportSource;
pub use results_table::ResultsTable;
pub use run_new::NewRunPage;
pub use run_view::RunPage;
pub use share::SharePage;
pub use share_controls::ShareControls;
