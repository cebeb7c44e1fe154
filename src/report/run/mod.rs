//! A run's report: the snapshot (what it measured and how), its notes, cards, table, page and compact export
//! form, the server's section, the workload's section (with a multi-turn workload's figures by turn), and two runs compared.

pub(in crate::report) mod cards;
pub(in crate::report) mod compact;
pub(in crate::report) mod compare;
pub(in crate::report) mod honesty;
pub(in crate::report) mod lengths;
pub(in crate::report) mod page;
pub(in crate::report) mod server;
pub(in crate::report) mod snapshot;
pub(in crate::report) mod table;
pub(in crate::report) mod turns;
pub(in crate::report) mod view;
pub(in crate::report) mod workload;

pub use cards::{stat_cards, StatCard};
pub use compact::{Columns, CompactError, CompactExport, CompactSnapshot, ReportFiles, COMPACT_VERSION};
#[cfg(feature = "ssr")]
pub use compare::compare;
pub use compare::{comparability_warnings, delta, ComparedRun, Comparison, LatencyTests};
pub use honesty::honesty_notes;
pub use lengths::{
    cache_words, cached_share, length_rows, length_series, tenths, LengthSeries, INPUT_LENGTHS, OUTPUT_LENGTHS,
};
pub use page::ReportPage;
pub use server::{server_notes, with_server};
pub use snapshot::{snapshot, ReportAgent, ReportConnector, ReportHeader, ReportSnapshot, ReportStats, SharedReport};
pub use table::{page_count, table_page, IterationPage, SortKey, TableQuery, MAX_PAGE_SIZE};
pub use turns::{Conversations, TurnSummary};
pub use view::{report_view, scatter_point, ReportView, ServerSection, WorkloadSection};
pub use workload::{workload_notes, workload_report, CountSummary, WorkloadReport};
