//! Statistics: pure, total functions over samples. No I/O, no clock; compiled into the browser build too, so
//! figures shown in pages, exports and the CLI come from one implementation.

mod percentile;
mod summary;

pub use percentile::{percentile, percentiles, Percentiles, PERCENTILE_METHOD};
pub use summary::{summarize, RunSummary};
