//! What the requests say beside a threshold's crossing: Welch's test of the run's total times (or of a streamed
//! figure's per-request times) against the baseline's, the Hodges–Lehmann shift with its interval, and the
//! effective sample size of a run whose consecutive requests were alike — and those in words for the reasons.

use crate::guard::model::{Metric, Serial, Shift, StreamedSamples};
use crate::stats::compare::welch_t_test_sized;
use crate::stats::serial::effective_size;
use crate::stats::shift::hodges_lehmann;

/// What Welch's test of the total times (or of a streamed figure's per-request times) found, for the thresholds it
/// gates.
pub(super) struct Evidence {
    /// The per-request figure tested, in words.
    pub(super) what: &'static str,
    pub(super) p_value: Option<f64>,
    pub(super) shift: Option<Shift>,
    pub(super) serial: Option<Serial>,
    pub(super) observed_len: usize,
}

impl Evidence {
    /// Said after Welch's p-value: how far the total times moved, and whether the run counted as fewer requests.
    pub(super) fn words(&self) -> String {
        let mut words = String::new();
        if let Some(s) = &self.shift {
            words.push_str(&format!(
                "; {} shifted {:+.1} ms (Hodges–Lehmann, {}% interval {:+.1} to {:+.1} ms)",
                self.what,
                s.estimate,
                crate::model::trim_number(s.confidence * 100.0),
                s.low,
                s.high
            ));
        }
        if let Some(s) = &self.serial {
            words.push_str(&format!(
                "; consecutive requests were alike (lag-1 autocorrelation {:.2}), so Welch counted this run's {} \
                 requests as {:.1} independent ones",
                s.lag1, self.observed_len, s.effective_n
            ));
        }
        words
    }
}

/// Welch's test and the Hodges–Lehmann shift of a streamed figure's per-request times, observed against the
/// baseline's; no p-value when either side has none (an unstreamed baseline) or too few.
pub(super) fn streamed_evidence(
    metric: Metric,
    observed: Option<&StreamedSamples>,
    baseline: Option<&StreamedSamples>,
    alpha: f64,
) -> Evidence {
    let what = match metric {
        Metric::TtftP95Ms => "TTFT",
        Metric::TpotP95Ms => "TPOT",
        _ => "time to first output",
    };
    let (observed, baseline) =
        (observed.and_then(|s| s.of(metric)).unwrap_or(&[]), baseline.and_then(|s| s.of(metric)).unwrap_or(&[]));
    let p_value =
        welch_t_test_sized((observed, observed.len() as f64), (baseline, baseline.len() as f64)).map(|w| w.p_value);
    let shift = hodges_lehmann(observed, baseline, 1.0 - alpha);
    Evidence { what, p_value, shift, serial: None, observed_len: observed.len() }
}

/// Welch's test of the run's total times against the baseline's, counting the run as its effective sample size
/// when its lag-1 autocorrelation `lag1` exceeds the white-noise bound, and the Hodges–Lehmann shift.
pub(super) fn total_time_evidence(observed: &[f64], baseline: &[f64], lag1: Option<f64>, alpha: f64) -> Evidence {
    let serial =
        lag1.and_then(|r1| effective_size(observed.len(), r1).map(|effective_n| Serial { lag1: r1, effective_n }));
    let observed_n = serial.map_or(observed.len() as f64, |s| s.effective_n);
    let welch = welch_t_test_sized((observed, observed_n), (baseline, baseline.len() as f64));
    let shift = hodges_lehmann(observed, baseline, 1.0 - alpha);
    Evidence { what: "total time", p_value: welch.map(|w| w.p_value), shift, serial, observed_len: observed.len() }
}
