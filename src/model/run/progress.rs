//! Live progress of a run, as the browser receives it over Server-Sent Events.

use serde::{Deserialize, Serialize};

use crate::model::{IterationRecord, RunStatus};

/// Counters of a run so far.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunProgress {
    /// Life-cycle state.
    pub status: RunStatus,
    /// Warm-up plus measured requests planned.
    pub total: u64,
    /// Requests finished (recorded).
    pub done: u64,
    /// Of those, failed.
    pub errors: u64,
    /// Since the run started, ms.
    pub elapsed_ms: u64,
    /// Estimated time left at the pace so far, ms; `None` before the first result or after the end.
    pub eta_ms: Option<u64>,
    /// The run's time limit, ms, when it has one: `total` is then only a cap, and the time decides.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_limit_ms: Option<u64>,
}

impl RunProgress {
    /// Progress from counters and the elapsed time; the ETA assumes the pace so far continues.
    pub fn new(status: RunStatus, total: u64, done: u64, errors: u64, elapsed_ms: u64) -> Self {
        let eta_ms = (status == RunStatus::Running && done > 0 && done < total)
            .then(|| (elapsed_ms as f64 / done as f64 * (total - done) as f64) as u64);
        Self { status, total, done, errors, elapsed_ms, eta_ms, time_limit_ms: None }
    }

    /// The same progress for a run with a time limit (if any): the time left is at most what the limit leaves
    /// (counted from the run's start, so a little early when warm-ups came first).
    pub fn limited(mut self, time_limit_ms: Option<u64>) -> Self {
        if let Some(limit) = time_limit_ms {
            let left = limit.saturating_sub(self.elapsed_ms);
            self.eta_ms = self.eta_ms.map(|eta| eta.min(left));
            self.time_limit_ms = Some(limit);
        }
        self
    }
}

/// One finished request as the live scatter plots it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LivePoint {
    /// Send order.
    pub seq: u64,
    /// TTFT, ms (streamed successes only).
    pub ttft_ms: Option<f64>,
    /// Total time, ms.
    pub total_ms: f64,
    /// Failed.
    pub error: bool,
    /// Warm-up (excluded from statistics).
    pub warmup: bool,
}

impl From<&IterationRecord> for LivePoint {
    fn from(r: &IterationRecord) -> Self {
        Self { seq: r.seq, ttft_ms: r.ttft_ms, total_ms: r.total_ms, error: r.error.is_some(), warmup: r.warmup }
    }
}

/// One message of the live stream: the counters and the points finished since the previous message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunUpdate {
    /// Counters now.
    pub progress: RunProgress,
    /// New points.
    pub points: Vec<LivePoint>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eta_extrapolates_the_pace_so_far_and_disappears_at_the_end() {
        assert_eq!(RunProgress::new(RunStatus::Running, 100, 25, 0, 10_000).eta_ms, Some(30_000));
        assert_eq!(RunProgress::new(RunStatus::Running, 100, 0, 0, 10_000).eta_ms, None);
        assert_eq!(RunProgress::new(RunStatus::Completed, 100, 100, 0, 10_000).eta_ms, None);
        let limited = RunProgress::new(RunStatus::Running, 100_000, 25, 0, 10_000).limited(Some(15_000));
        assert_eq!((limited.eta_ms, limited.time_limit_ms), (Some(5_000), Some(15_000)), "the limit decides");
    }
}
