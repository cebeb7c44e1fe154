//! Statistics: pure, total functions over samples. No I/O, no clock; compiled into the browser build too, so
//! figures shown in pages, exports and the CLI come from one implementation. The significance tests of run
//! comparisons (`compare`), Guard's tests over a schedule's history (`change_points`, `history_tests`), the
//! adjustment for several tests at once (`multiple`), the Hodges–Lehmann shift (`shift`), the
//! effective sample size of correlated requests (`serial`) and the intervals of repeated runs (`repeated`) are the
//! exception: server-side, so the browser bundle carries no statistics library.

#[cfg(feature = "ssr")]
pub mod change_points;
#[cfg(feature = "ssr")]
pub mod compare;
mod goodput;
#[cfg(feature = "ssr")]
pub mod history_tests;
#[cfg(feature = "ssr")]
pub mod multiple;
mod pacing;
mod percentile;
pub mod repeated;
#[cfg(feature = "ssr")]
pub mod serial;
#[cfg(feature = "ssr")]
pub mod shift;
mod shift_estimate;
mod slices;
mod summary;

/// Below this p-value a difference counts as real (an A/B test asks it of both of its tests; repeated runs of
/// Welch's test).
pub const ALPHA: f64 = 0.05;

pub use goodput::{goodput, is_good, Goodput, SloAttainment};
pub use pacing::{pacing, Pacing, MIN_ACHIEVED_SHARE};
pub use percentile::{percentile, percentiles, Percentiles, PERCENTILE_METHOD};
pub use shift_estimate::Shift;
pub use slices::{slice_width_s, time_slices, TimeSlice};
pub use summary::{slowest, successful_values, summarize, RunSummary};
