//! A streamed run's per-request times besides total time, kept with a pinned baseline, each evaluation and a pool
//! for Welch's test of a streamed figure.

use serde::{Deserialize, Serialize};

use super::figures::Metric;

/// A streamed run's per-request times besides total time, for Welch's test of a streamed figure: each successful
/// measured request's time to first token, time per output token and time to first output, ms (a request
/// without one, e.g. a single-token answer's TPOT, is left out of that list).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StreamedSamples {
    /// Times to first token.
    pub ttft_ms: Vec<f64>,
    /// Times per output token.
    pub tpot_ms: Vec<f64>,
    /// Times to first output.
    pub first_output_ms: Vec<f64>,
}

impl StreamedSamples {
    /// The requests' values behind `metric`, when it is a streamed figure.
    pub fn of(&self, metric: Metric) -> Option<&[f64]> {
        match metric {
            Metric::TtftP95Ms => Some(&self.ttft_ms),
            Metric::TpotP95Ms => Some(&self.tpot_ms),
            Metric::FirstOutputP95Ms => Some(&self.first_output_ms),
            _ => None,
        }
    }

    /// `other`'s values added to these (pooling runs).
    pub fn extend(&mut self, other: &StreamedSamples) {
        self.ttft_ms.extend_from_slice(&other.ttft_ms);
        self.tpot_ms.extend_from_slice(&other.tpot_ms);
        self.first_output_ms.extend_from_slice(&other.first_output_ms);
    }
}
