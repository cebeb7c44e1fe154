//! Benchmark runs: from a plan and a stored connector to measured, stored iterations with live progress; and the
//! single measured call behind `runBenchmarkOnce`.

mod driver;
mod live;
mod manager;
mod once;

pub use driver::{drive, Finished};
pub use live::live_events;
pub use manager::{RunManager, StartError};
pub use once::{run_once, OnceError, OnceInput};
