//! Workloads: what a run sends, beyond a list of prompts. Token lengths drawn from distributions (`lengths`).

pub(in crate::model) mod lengths;

pub use lengths::{workload_limits, LengthDist};
