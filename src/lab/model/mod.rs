//! Spec Lab's types: an A/B test's plan and summary, and the requests of its arms as measured.

mod measured;
mod plan;

pub use measured::{MeasuredArm, MeasuredCell, TimedRecord};
pub use plan::{ab_limits, AbCellPlan, AbPlan, AbPlanInput, AbTestInput, AbTestSummary};

/// What an A/B test's HTML file calls itself after its title: `<title>{title} — A/B test</title>`.
pub const AB_TEST_FILE: &str = "A/B test";
