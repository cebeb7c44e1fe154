//! Statistics: pure, total functions over samples. No I/O, no clock; compiled into the browser build too, so
//! figures shown in pages, exports and the CLI come from one implementation.

mod percentile;

pub use percentile::{percentile, percentiles, Percentiles, PERCENTILE_METHOD};
