//! How far one sample moved from another, robustly: the Hodges–Lehmann estimate of the shift (the median of every
//! difference `a_i − b_j`) and its distribution-free confidence interval from the Mann–Whitney statistic (Lehmann
//! 1975; Hollander & Wolfe, *Nonparametric Statistical Methods*, §4.3): with `k = ⌊nm/2 − z·√(nm(n+m+1)/12)⌋`,
//! the interval is the k-th smallest to the k-th largest difference (the normal approximation of the statistic,
//! no tie correction). Unlike the difference of means, one slow outlier does not move it; beside Welch's p-value
//! it says how large the change is, in the metric's own unit.

use statrs::distribution::{ContinuousCDF, Normal};

use super::Shift;

/// The most pairwise differences computed (a 2,000 × 2,000 comparison); larger samples are thinned evenly first.
pub const MAX_PAIRS: usize = 4_000_000;

/// The shift of `a` relative to `b` (positive: `a` is larger) with a `confidence` interval (0.95 for 95 %);
/// `None` when either sample is empty, or too small for any interval at that confidence.
pub fn hodges_lehmann(a: &[f64], b: &[f64], confidence: f64) -> Option<Shift> {
    if a.is_empty() || b.is_empty() || !(confidence > 0.0 && confidence < 1.0) {
        return None;
    }
    let (a, b) = thinned(a, b);
    let mut differences: Vec<f64> = a.iter().flat_map(|x| b.iter().map(move |y| x - y)).collect();
    let (n, m) = (a.len() as f64, b.len() as f64);
    let total = differences.len();
    let z = Normal::new(0.0, 1.0).ok()?.inverse_cdf(1.0 - (1.0 - confidence) / 2.0);
    let k = (n * m / 2.0 - z * (n * m * (n + m + 1.0) / 12.0).sqrt()).floor();
    if k < 1.0 {
        return None;
    }
    let k = k as usize;
    let estimate = median(&mut differences);
    let low = *differences.select_nth_unstable_by(k - 1, f64::total_cmp).1;
    let high = *differences.select_nth_unstable_by(total - k, f64::total_cmp).1;
    Some(Shift { estimate, low, high, confidence })
}

/// The samples as given, or both thinned to every j-th value so that their product stays within [`MAX_PAIRS`].
fn thinned<'a>(a: &'a [f64], b: &'a [f64]) -> (std::borrow::Cow<'a, [f64]>, std::borrow::Cow<'a, [f64]>) {
    if a.len().saturating_mul(b.len()) <= MAX_PAIRS {
        return (a.into(), b.into());
    }
    let step = ((a.len() as f64 * b.len() as f64) / MAX_PAIRS as f64).sqrt().ceil() as usize;
    let every = |s: &[f64]| s.iter().step_by(step).copied().collect::<Vec<f64>>().into();
    (every(a), every(b))
}

fn median(values: &mut [f64]) -> f64 {
    let n = values.len();
    let upper = *values.select_nth_unstable_by(n / 2, f64::total_cmp).1;
    if n % 2 == 1 {
        return upper;
    }
    let lower = values[..n / 2].iter().copied().fold(f64::NEG_INFINITY, f64::max);
    (lower + upper) / 2.0
}

#[cfg(test)]
mod tests {
    use super::*;

    // Reference values from numpy 2.4.6 (z from Python's statistics.NormalDist), computed apart from this code:
    //   d = np.sort(np.subtract.outer(a, b).ravel()); est = np.median(d)
    //   k = floor(n*m/2 - norm.ppf(1 - (1-conf)/2) * sqrt(n*m*(n+m+1)/12)); ci = (d[k-1], d[n*m-k])
    const A: [f64; 12] = [212.0, 198.5, 240.1, 225.3, 201.7, 260.4, 219.9, 233.0, 207.2, 245.8, 228.6, 215.0];
    const B: [f64; 10] = [180.2, 175.9, 190.4, 185.1, 199.8, 170.3, 188.7, 182.6, 193.5, 178.0];

    fn close(x: f64, y: f64) -> bool {
        (x - y).abs() <= 1e-9 * y.abs().max(1.0)
    }

    #[test]
    fn matches_numpy_on_a_clear_shift() {
        let shift = hodges_lehmann(&A, &B, 0.95).unwrap();
        assert!(close(shift.estimate, 37.75), "{shift:?}");
        assert!(close(shift.low, 24.599999999999994) && close(shift.high, 52.80000000000001), "{shift:?}");
        let wider = hodges_lehmann(&A, &B, 0.99).unwrap();
        assert!(close(wider.low, 19.099999999999994) && close(wider.high, 60.599999999999966), "{wider:?}");
    }

    #[test]
    fn one_outlier_does_not_move_it_and_tiny_samples_get_no_interval() {
        let mut outlier = A;
        outlier[0] = 10_000.0;
        let robust = hodges_lehmann(&outlier, &B, 0.95).unwrap();
        let plain = hodges_lehmann(&A, &B, 0.95).unwrap();
        // One request of twelve 10 s late moves the difference of means by 816 ms; the estimate, by under 5.
        let mean = |s: &[f64]| s.iter().sum::<f64>() / s.len() as f64;
        assert!(mean(&outlier) - mean(&A) > 800.0);
        assert!((robust.estimate - plain.estimate).abs() < 5.0, "{robust:?} vs {plain:?}");
        assert_eq!(hodges_lehmann(&[1.0, 2.0], &[1.5, 2.5], 0.95), None, "too few pairs for a 95 % interval");
        assert_eq!(hodges_lehmann(&[], &B, 0.95), None);
        let same = hodges_lehmann(&B, &B, 0.95).unwrap();
        assert!(same.estimate == 0.0 && same.low < 0.0 && same.high > 0.0, "{same:?}");
    }

    #[test]
    fn large_samples_are_thinned_to_the_pair_budget() {
        let a: Vec<f64> = (0..5_000).map(|i| 100.0 + (i % 97) as f64).collect();
        let b: Vec<f64> = (0..5_000).map(|i| 90.0 + (i % 97) as f64).collect();
        let shift = hodges_lehmann(&a, &b, 0.95).unwrap();
        assert!((shift.estimate - 10.0).abs() <= 1.0, "{shift:?}");
    }
}
