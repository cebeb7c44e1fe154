//! A run over time: its measured requests grouped by when they finished into equal slices (about a tenth of the
//! run, a round number of seconds), each with its latency percentiles, completions per second and failures, so
//! warm-up, throttling and degradation inside a run show. Every measured request with a known send time falls in
//! exactly one slice, so the slices' counts sum to the run's.

use serde::{Deserialize, Serialize};

use super::percentile::{percentiles, Percentiles};
use crate::model::IterationRecord;

/// Slices a run is cut into, about.
const TARGET_SLICES: f64 = 10.0;

/// One slice of the run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TimeSlice {
    /// Start, seconds since the run started.
    pub start_s: f64,
    /// End (exclusive), seconds since the run started.
    pub end_s: f64,
    /// Measured requests that finished in it.
    pub completed: u64,
    /// Of those, failed.
    pub failed: u64,
    /// TTFT of the successful ones.
    pub ttft: Option<Percentiles>,
    /// Total time of the successful ones.
    pub total: Option<Percentiles>,
    /// Completions per second.
    pub requests_per_sec: f64,
    /// Output tokens of the successful ones per second.
    pub output_tokens_per_sec: f64,
}

/// A round slice width (1, 2 or 5 × a power of ten seconds, at least 1 s) giving about ten slices over `span_s`.
pub fn slice_width_s(span_s: f64) -> f64 {
    let raw = (span_s / TARGET_SLICES).max(1.0);
    let magnitude = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 5.0, 10.0].into_iter().map(|m| m * magnitude).find(|w| *w >= raw).unwrap_or(10.0 * magnitude)
}

/// The run's measured requests by completion time (send offset + total time); requests recorded without a send
/// time (before this version) are left out.
pub fn time_slices(records: &[IterationRecord]) -> Vec<TimeSlice> {
    let timed: Vec<(&IterationRecord, f64)> = records
        .iter()
        .filter(|r| !r.warmup)
        .filter_map(|r| r.sent_at_ms.map(|sent| (r, (sent + r.total_ms) / 1e3)))
        .collect();
    let Some(last) = timed.iter().map(|(_, end)| *end).reduce(f64::max) else { return Vec::new() };
    let width = slice_width_s(last);
    let count = ((last / width).floor() as usize) + 1;
    let mut groups: Vec<Vec<&IterationRecord>> = vec![Vec::new(); count];
    for (record, end) in &timed {
        groups[((end / width).floor() as usize).min(count - 1)].push(record);
    }
    groups
        .into_iter()
        .enumerate()
        .map(|(i, group)| {
            let ok: Vec<&&IterationRecord> = group.iter().filter(|r| r.error.is_none()).collect();
            let tokens: u64 = ok.iter().filter_map(|r| r.tokens_out).sum();
            TimeSlice {
                start_s: i as f64 * width,
                end_s: (i + 1) as f64 * width,
                completed: group.len() as u64,
                failed: (group.len() - ok.len()) as u64,
                ttft: percentiles(ok.iter().filter_map(|r| r.ttft_ms)),
                total: percentiles(ok.iter().map(|r| r.total_ms)),
                requests_per_sec: group.len() as f64 / width,
                output_tokens_per_sec: tokens as f64 / width,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(sent_ms: f64, total_ms: f64, failed: bool) -> IterationRecord {
        IterationRecord {
            sent_at_ms: Some(sent_ms),
            total_ms,
            ttft_ms: Some(total_ms / 2.0),
            tokens_out: Some(10),
            error: failed.then(|| "timeout: slow".into()),
            ..IterationRecord::blank()
        }
    }

    #[test]
    fn widths_are_round_and_give_about_ten_slices() {
        assert_eq!(slice_width_s(3.0), 1.0, "never under a second");
        assert_eq!(slice_width_s(25.0), 5.0);
        assert_eq!(slice_width_s(100.0), 10.0);
        assert_eq!(slice_width_s(130.0), 20.0);
        assert_eq!(slice_width_s(3_600.0), 500.0);
    }

    #[test]
    fn every_measured_request_falls_in_one_slice_and_the_counts_sum_to_the_run() {
        let mut records: Vec<IterationRecord> =
            (0..40).map(|i| at(f64::from(i) * 450.0, 200.0 + f64::from(i) * 10.0, i % 10 == 9)).collect();
        records.push(IterationRecord { warmup: true, ..at(0.0, 100.0, false) });
        records.push(IterationRecord { sent_at_ms: None, ..at(0.0, 100.0, false) });
        let slices = time_slices(&records);
        // The last request ends at 17.55 s + 0.59 s = 18.14 s: 2 s slices, 10 of them.
        assert_eq!(slices.len(), 10);
        assert_eq!(slices.iter().map(|s| s.completed).sum::<u64>(), 40, "warm-ups and untimed rows left out");
        assert_eq!(slices.iter().map(|s| s.failed).sum::<u64>(), 4);
        assert_eq!((slices[0].start_s, slices[0].end_s, slices[0].completed), (0.0, 2.0, 4));
        assert_eq!(slices[0].requests_per_sec, 2.0);
        assert_eq!(slices[0].total.unwrap().p50, 215.0, "numpy: percentile([200, 210, 220, 230], 50)");
        let medians: Vec<f64> = slices.iter().filter_map(|s| s.total.map(|p| p.p50)).collect();
        assert!(medians.windows(2).all(|w| w[0] < w[1]), "latency grows: {medians:?}");
        assert_eq!((slices[9].completed, slices[9].failed, slices[9].total), (1, 1, None), "only a failure at the end");
        assert!(time_slices(&[]).is_empty());
    }
}
