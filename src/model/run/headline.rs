//! A finished run's headline figures, kept with the run so that a list of runs (the home page, the runs page) shows
//! them without reading every iteration: the same figures the report's first cards show, computed once at the end.

use serde::{Deserialize, Serialize};

/// What a list says of a finished run. Throughputs are over the measured span (first measured send to last
/// measured end), as the report's cards and Compare define them.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunHeadline {
    /// Measured requests (warm-ups left out).
    pub measured: u64,
    /// Of those, the ones that succeeded.
    pub succeeded: u64,
    /// Output tokens of successful requests per second of the measured span.
    pub output_tok_per_sec: Option<f64>,
    /// Successful requests per second of the measured span.
    pub requests_per_sec: Option<f64>,
    /// TTFT's 95th percentile over successful requests, ms.
    pub ttft_p95_ms: Option<f64>,
}

impl RunHeadline {
    /// The share of measured requests that failed, 0–1 (0 when none was measured).
    pub fn error_rate(&self) -> f64 {
        if self.measured == 0 {
            0.0
        } else {
            (self.measured - self.succeeded.min(self.measured)) as f64 / self.measured as f64
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_error_rate_counts_measured_requests_that_did_not_succeed() {
        let headline = |measured, succeeded| RunHeadline {
            measured,
            succeeded,
            output_tok_per_sec: None,
            requests_per_sec: None,
            ttft_p95_ms: None,
        };
        assert_eq!(headline(200, 190).error_rate(), 0.05);
        assert_eq!(headline(0, 0).error_rate(), 0.0);
        assert_eq!(headline(10, 10).error_rate(), 0.0);
    }
}
