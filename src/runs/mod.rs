//! Benchmark runs: from a plan and a stored connector to measured, stored iterations with live progress; and the
//! single measured call behind `runBenchmarkOnce`; Spec Lab's A/B tests, which measure two connectors alike; sweeps, a series of runs over load levels;
//! the iterations of a run without a database, spilled to disk.

mod ab;
mod driver;
mod execute;
mod manager;
mod once;
mod report_views;
mod spill;
mod sweep;

pub use ab::AbManager;
pub use driver::{drive, Finished};
pub use execute::{execute, seed_from, BatchSink, Execution, Outcome, SinkError};
pub use manager::{RunManager, StartError};
pub use once::{run_once, OnceError, OnceInput};
pub use report_views::{ExportSnapshots, ReportViews, EXPORT_BYTES_KEPT, REPORT_VIEWS_KEPT};
pub use spill::RecordSpill;
pub use sweep::SweepManager;
