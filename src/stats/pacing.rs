//! How faithfully a load generator applied an open loop's plan: the send rate it achieved and how late its sends
//! went out behind their schedule. A run that missed either answered another question than the one asked, so
//! capacity levels fail on it and Guard calls such a run inconclusive.

use crate::model::IterationRecord;
use crate::stats::percentile;

/// An open loop whose achieved send rate is below this share of its target did not apply the load asked for.
pub const MIN_ACHIEVED_SHARE: f64 = 0.9;

/// A run's pacing, over its measured requests.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pacing {
    /// Sends per second from the first send to the last (n sends span n − 1 gaps); `None` with fewer than two
    /// sends or no send times.
    pub achieved_rate: Option<f64>,
    /// The 95th percentile of schedule lag (linear interpolation), ms; `None` without requests.
    pub lag_p95_ms: Option<f64>,
}

/// The pacing of `measured` (warm-ups left out by the caller).
pub fn pacing(measured: &[&IterationRecord]) -> Pacing {
    let sends: Vec<f64> = measured.iter().filter_map(|r| r.sent_at_ms).collect();
    let first = sends.iter().copied().reduce(f64::min);
    let last = sends.iter().copied().reduce(f64::max);
    let achieved_rate = first
        .zip(last)
        .map(|(first, last)| (last - first) / 1e3)
        .filter(|window| *window > 0.0)
        .map(|window| (sends.len() as f64 - 1.0) / window);
    let mut lags: Vec<f64> = measured.iter().map(|r| r.schedule_lag_ms).collect();
    lags.sort_by(f64::total_cmp);
    Pacing { achieved_rate, lag_p95_ms: percentile(&lags, 95.0) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::fixtures::iteration_record;

    #[test]
    fn ten_sends_over_four_and_a_half_seconds_are_two_a_second() {
        let records: Vec<IterationRecord> = (0..10)
            .map(|i| IterationRecord {
                sent_at_ms: Some(1_000.0 + i as f64 * 500.0),
                schedule_lag_ms: i as f64,
                ..iteration_record(i, None, 100.0, false)
            })
            .collect();
        let measured: Vec<&IterationRecord> = records.iter().collect();
        let p = pacing(&measured);
        assert_eq!(p.achieved_rate, Some(2.0));
        // numpy.percentile(range(10), 95) = 8.55
        assert!((p.lag_p95_ms.unwrap() - 8.55).abs() < 1e-9, "{:?}", p.lag_p95_ms);
        assert_eq!(pacing(&measured[..1]).achieved_rate, None, "one send has no rate");
    }
}
