//! A run's service: from a plan and a stored connector to measured, stored iterations with live progress; the
//! single measured call behind `runBenchmarkOnce`; what each job sends (`requests`: a prompt of the plan or a
//! workload's request); the iterations of a run without a database, spilled to disk; the load generator's own
//! process watched while a run sends (`client_load`).
//! (A/B tests and sweeps, which drive runs or measure like them, are managed beside their features: `speclab`
//! and `capacity`.)

mod arrivals;
mod client_load;
mod driver;
mod execute;
mod manager;
mod once;
mod report_views;
mod requests;
mod spill;

pub use client_load::ClientWatch;
pub use driver::{drive, Finished, Pacing};
pub use execute::{execute, seed_from, BatchSink, Execution, Outcome, SinkError};
pub use manager::RunManager;
pub use once::{run_once, OnceError, OnceInput};
pub use report_views::{ExportSnapshots, ReportViews, EXPORT_BYTES_KEPT, REPORT_VIEWS_KEPT};
pub use spill::RecordSpill;
