//! One evaluation as a pooled baseline takes it: what the store reads and the pool rule (`guard::judge::pool`)
//! turns into the figures a run is compared with.

use super::{GuardSummary, StreamedSamples};
use crate::model::RunId;

/// One evaluation a pool may take.
#[derive(Debug, Clone, PartialEq)]
pub struct PooledEvaluation {
    /// Finished, unix ms.
    pub finished_at_ms: i64,
    /// Its run.
    pub run_id: RunId,
    /// Its successful measured total times, ms.
    pub total_ms: Vec<f64>,
    /// Its summary.
    pub summary: GuardSummary,
    /// Its per-request TTFT, TPOT and time to first output, when it streamed.
    pub streamed: Option<StreamedSamples>,
}
