//! Benchmark runs: from a plan and a stored connector to measured iterations. This first part holds the single
//! measured call behind `runBenchmarkOnce`; multi-iteration runs, schedules and live progress build on it.

mod driver;
mod once;

pub use driver::{drive, Finished};
pub use once::{run_once, OnceError, OnceInput};
