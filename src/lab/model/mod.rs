//! Spec Lab's types: an A/B test's plan and summary, and the requests of its arms as measured.

mod measured;
mod plan;

pub use measured::{MeasuredArm, MeasuredCell, TimedRecord};
pub use plan::{ab_limits, AbCellPlan, AbPlan, AbPlanInput, AbTestInput, AbTestSummary};
