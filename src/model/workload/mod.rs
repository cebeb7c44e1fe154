//! Workloads: what a run sends, beyond a list of prompts (`spec`), with token lengths drawn from distributions
//! (`lengths`).

pub(in crate::model) mod lengths;
pub(in crate::model) mod spec;

pub use lengths::{workload_limits, LengthDist};
pub use spec::Workload;
