//! The requests of an A/B test's arms as measured, cell by cell: what the rounds hand to the judge.

use super::AbCellPlan;
use crate::model::{IterationRecord, ServerMetrics};

/// A request of one arm, measured.
#[derive(Debug, Clone, PartialEq)]
pub struct TimedRecord {
    /// The iteration as reports show it.
    pub record: IterationRecord,
    /// Time per output token after the first, ms (`Measurement::tpot_ms`).
    pub tpot_ms: Option<f64>,
}

/// One arm's requests in one cell.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MeasuredArm {
    /// Every request in send order, warm-ups first.
    pub requests: Vec<TimedRecord>,
    /// Its server's metrics over the cell, when its engine is known and `/metrics` answered.
    pub server: Option<ServerMetrics>,
}

/// One cell, measured.
#[derive(Debug, Clone, PartialEq)]
pub struct MeasuredCell {
    /// Its load and temperature.
    pub plan: AbCellPlan,
    /// Baseline, then candidate.
    pub arms: [MeasuredArm; 2],
    /// The cell was cut short by a stop.
    pub cut_short: bool,
    /// What the load generator's process did while the cell was sent (both arms: they take turns).
    pub client: Option<crate::model::ClientLoad>,
}
