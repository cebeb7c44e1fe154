//! Percentiles by linear interpolation between closest ranks: for sorted `x` of length `n` and `p` in
//! `[0, 100]`, rank `r = p/100 · (n−1)`, result `x[⌊r⌋] + (x[⌈r⌉] − x[⌊r⌋]) · (r − ⌊r⌋)`. This is numpy's
//! default (`method="linear"`) and R's type 7, so any figure can be re-derived from an export with either.

use serde::{Deserialize, Serialize};

/// How percentiles are computed, in words for reports.
pub const PERCENTILE_METHOD: &str =
    "linear interpolation between closest ranks (numpy's default, R type 7) over successful iterations";

/// The `p`-th percentile of `sorted` (ascending, no NaN); `None` for an empty slice or `p` outside `[0, 100]`.
pub fn percentile(sorted: &[f64], p: f64) -> Option<f64> {
    if sorted.is_empty() || !(0.0..=100.0).contains(&p) {
        return None;
    }
    let rank = p / 100.0 * (sorted.len() - 1) as f64;
    let below = rank.floor();
    let lower = sorted[below as usize];
    let upper = sorted[rank.ceil() as usize];
    Some(lower + (upper - lower) * (rank - below))
}

/// p50, p95 and p99 of a sample.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Percentiles {
    /// Median.
    pub p50: f64,
    /// 95th percentile.
    pub p95: f64,
    /// 99th percentile.
    pub p99: f64,
}

/// p50/p95/p99 of `values` in any order; NaN values are dropped. `None` when nothing is left.
pub fn percentiles(values: impl IntoIterator<Item = f64>) -> Option<Percentiles> {
    let mut sorted: Vec<f64> = values.into_iter().filter(|v| !v.is_nan()).collect();
    sorted.sort_by(f64::total_cmp);
    Some(Percentiles {
        p50: percentile(&sorted, 50.0)?,
        p95: percentile(&sorted, 95.0)?,
        p99: percentile(&sorted, 99.0)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Expected values computed independently with numpy 2 (`np.percentile(data, [50, 95, 99])`).
    const CASES: &[(&str, &[f64], [f64; 3])] = &[
        (
            "ten latencies with an outlier",
            &[12.0, 15.5, 9.25, 30.0, 11.0, 13.75, 100.0, 14.0, 10.5, 16.25],
            [13.875, 68.49999999999993, 93.70000000000002],
        ),
        ("single value", &[42.0], [42.0, 42.0, 42.0]),
        ("two values", &[1.0, 3.0], [2.0, 2.9, 2.98]),
        ("ties", &[5.0, 5.0, 5.0, 7.0, 7.0, 9.0], [6.0, 8.5, 8.9]),
    ];

    #[test]
    fn matches_numpys_default_method_on_named_datasets() {
        for (name, data, [p50, p95, p99]) in CASES {
            let got = percentiles(data.iter().copied()).unwrap();
            for (which, got, want) in [("p50", got.p50, p50), ("p95", got.p95, p95), ("p99", got.p99, p99)] {
                assert!((got - want).abs() < 1e-9, "{name} {which}: {got} != {want}");
            }
        }
    }

    #[test]
    fn is_total_on_empty_input_nan_and_out_of_range_p() {
        assert_eq!(percentiles([]), None);
        assert_eq!(percentiles([f64::NAN]), None);
        assert_eq!(percentile(&[1.0], 101.0), None);
        assert_eq!(percentile(&[1.0], -1.0), None);
        assert_eq!(percentiles([3.0, f64::NAN, 1.0]).unwrap().p50, 2.0);
    }
}
