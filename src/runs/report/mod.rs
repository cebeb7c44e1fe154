//! A run's report: the snapshot (what it measured and how), its notes, cards, table, page and compact export
//! form, the verdict on its figures, the server's section, the workload's section (with a multi-turn workload's figures by turn), and two runs compared.

mod cache;
mod cards;
mod compact;
mod compare;
mod files;
mod honesty;
mod lengths;
mod listing;
mod page;
mod server;
mod snapshot;
mod table;
mod turns;
mod validity;
mod view;
mod workload;

pub use cache::cache_warning;
pub use cards::{stat_cards, StatCard};
pub use compact::{Columns, CompactError, CompactExport, CompactSnapshot, ReportFiles, COMPACT_VERSION};
#[cfg(feature = "ssr")]
pub use compare::compare;
pub use compare::{comparability_warnings, delta, ComparedRun, Comparison, LatencyTests};
pub use files::{
    csv_field, export, file_name, to_csv, to_html, to_json, ExportFormat, CSV_COLUMNS, CSV_TIMING_COLUMNS,
    CSV_WORKLOAD_COLUMNS,
};
pub use honesty::honesty_notes;
pub use lengths::{cache_words, cached_share, length_rows, length_series, LengthSeries, INPUT_LENGTHS, OUTPUT_LENGTHS};
pub use listing::{RunListing, ERRORS_HOW, OUTPUT_THROUGHPUT_HOW, TTFT_P95_HOW};
pub use page::ReportPage;
pub use server::{client_added_ms, server_notes, with_server};
pub use snapshot::{snapshot, ReportAgent, ReportConnector, ReportHeader, ReportSnapshot, ReportStats, SharedReport};
pub use table::{page_count, table_page, IterationPage, SortKey, TablePage, TableQuery, MAX_PAGE_SIZE};
pub use turns::{Conversations, TurnSummary};
pub use validity::{judge, judge_rounds, judge_run, samples_needed, Bounds};
pub use view::{report_view, scatter_point, ReportView, ServerSection, WorkloadSection};
pub use workload::{workload_notes, workload_report, CountSummary, WorkloadReport};
