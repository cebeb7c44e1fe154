//! What a shift estimate reports, a record kept in Guard's decisions and read by the browser too; the estimate
//! itself (`shift`, with its statistics library) is server-side.

use serde::{Deserialize, Serialize};

/// The Hodges–Lehmann estimate of a shift (the median of every pairwise difference, observed − baseline) and
/// its distribution-free confidence interval, in the sample's unit.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Shift {
    /// The estimate.
    pub estimate: f64,
    /// The interval's lower end.
    pub low: f64,
    /// Its upper end.
    pub high: f64,
    /// Its confidence level (0.95 for 95 %).
    pub confidence: f64,
}
