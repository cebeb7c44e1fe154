//! Two samples compared, two-sided, the way scipy computes it: Welch's t-test (`ttest_ind(equal_var=False)`) and
//! the Mann-Whitney U test (`mannwhitneyu(method="asymptotic", use_continuity=True)`, ties averaged and
//! corrected for). Distributions come from `statrs`. Server-side only, so the browser bundle carries no
//! statistics library: the comparison reaches the page as numbers.

use statrs::distribution::{ContinuousCDF, Normal, StudentsT};

/// Welch's unequal-variances t-test.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WelchTest {
    /// t statistic (first sample minus second).
    pub t: f64,
    /// Welch–Satterthwaite degrees of freedom.
    pub df: f64,
    /// Two-sided p-value.
    pub p_value: f64,
    /// Mean of the first sample minus mean of the second.
    pub difference: f64,
    /// The 95 % confidence interval of that difference (scipy's `confidence_interval(0.95)`): lower end.
    pub ci95_low: f64,
    /// Upper end.
    pub ci95_high: f64,
}

/// The Mann-Whitney U test.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MannWhitneyTest {
    /// U of the first sample (scipy's `statistic`).
    pub u: f64,
    /// Two-sided p-value, normal approximation with continuity and tie corrections.
    pub p_value: f64,
}

fn mean_and_variance(values: &[f64]) -> (f64, f64) {
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    let variance = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0);
    (mean, variance)
}

/// Welch's t-test of `a` against `b`; `None` when either has fewer than 2 values or both have no spread.
pub fn welch_t_test(a: &[f64], b: &[f64]) -> Option<WelchTest> {
    welch_t_test_sized((a, a.len() as f64), (b, b.len() as f64))
}

/// Welch's t-test with the size each sample counts for: its length, or fewer when its values are correlated (an
/// effective sample size, `stats::serial`). Means and variances are the samples' own; the standard error and the
/// degrees of freedom use the sizes given. `None` when a sample has fewer than 2 values, a size below 2, or both
/// have no spread.
pub fn welch_t_test_sized((a, n_a): (&[f64], f64), (b, n_b): (&[f64], f64)) -> Option<WelchTest> {
    if a.len() < 2 || b.len() < 2 || n_a < 2.0 || n_b < 2.0 {
        return None;
    }
    let ((mean_a, var_a), (mean_b, var_b)) = (mean_and_variance(a), mean_and_variance(b));
    let (se_a, se_b) = (var_a / n_a, var_b / n_b);
    let se2 = se_a + se_b;
    if se2.is_nan() || se2 <= 0.0 {
        return None;
    }
    let t = (mean_a - mean_b) / se2.sqrt();
    let df = se2 * se2 / (se_a * se_a / (n_a - 1.0) + se_b * se_b / (n_b - 1.0));
    let dist = StudentsT::new(0.0, 1.0, df).ok()?;
    let difference = mean_a - mean_b;
    let half_width = dist.inverse_cdf(0.975) * se2.sqrt();
    Some(WelchTest {
        t,
        df,
        p_value: (2.0 * dist.sf(t.abs())).min(1.0),
        difference,
        ci95_low: difference - half_width,
        ci95_high: difference + half_width,
    })
}

/// Ranks of `values` (1-based), ties given the average of the ranks they span, and Σ(t³ − t) over tie groups.
fn average_ranks(values: &[f64]) -> (Vec<f64>, f64) {
    let mut order: Vec<usize> = (0..values.len()).collect();
    order.sort_by(|&i, &j| values[i].total_cmp(&values[j]));
    let mut ranks = vec![0.0; values.len()];
    let mut ties = 0.0;
    let mut start = 0;
    while start < order.len() {
        let mut end = start + 1;
        while end < order.len() && values[order[end]] == values[order[start]] {
            end += 1;
        }
        let rank = (start + end + 1) as f64 / 2.0; // mean of ranks start+1 ..= end
        for &i in &order[start..end] {
            ranks[i] = rank;
        }
        let t = (end - start) as f64;
        ties += t * t * t - t;
        start = end;
    }
    (ranks, ties)
}

/// The Mann-Whitney U test of `a` against `b`; `None` when either is empty or every value is the same.
pub fn mann_whitney_u(a: &[f64], b: &[f64]) -> Option<MannWhitneyTest> {
    if a.is_empty() || b.is_empty() {
        return None;
    }
    let (n1, n2) = (a.len() as f64, b.len() as f64);
    let n = n1 + n2;
    let combined: Vec<f64> = a.iter().chain(b).copied().collect();
    let (ranks, ties) = average_ranks(&combined);
    let r1: f64 = ranks[..a.len()].iter().sum();
    let u1 = r1 - n1 * (n1 + 1.0) / 2.0;
    let u = u1.max(n1 * n2 - u1);
    let sigma = (n1 * n2 / 12.0 * ((n + 1.0) - ties / (n * (n - 1.0)))).sqrt();
    if sigma.is_nan() || sigma <= 0.0 {
        return None;
    }
    let z = (u - n1 * n2 / 2.0 - 0.5) / sigma;
    let normal = Normal::new(0.0, 1.0).ok()?;
    Some(MannWhitneyTest { u: u1, p_value: (2.0 * normal.sf(z)).min(1.0) })
}

#[cfg(test)]
mod tests {
    use super::*;

    // Inputs and scipy 1.17.1 results: `ttest_ind(x, y, equal_var=False)` (and its `confidence_interval(0.95)`) and
    // `mannwhitneyu(x, y, alternative="two-sided", method="asymptotic", use_continuity=True)`.
    const A: [f64; 10] = [812.4, 790.1, 845.7, 801.3, 833.9, 799.0, 820.6, 811.2, 828.4, 805.5];
    const B: [f64; 8] = [902.3, 871.8, 955.1, 880.6, 930.2, 897.4, 915.9, 889.0];
    const C: [f64; 12] = [120.0, 118.0, 125.0, 120.0, 131.0, 119.0, 120.0, 127.0, 118.0, 122.0, 125.0, 140.0];
    const D: [f64; 9] = [125.0, 120.0, 133.0, 129.0, 125.0, 138.0, 131.0, 120.0, 136.0];
    const E: [f64; 5] = [50.0, 51.0, 49.0, 50.5, 50.2];
    const F: [f64; 6] = [50.1, 50.9, 49.2, 50.4, 50.3, 49.8];

    fn close(actual: f64, expected: f64) {
        assert!((actual - expected).abs() <= 1e-6 * expected.abs().max(1e-3), "{actual} vs scipy's {expected}");
    }

    #[test]
    fn welch_matches_scipy() {
        for (x, y, t, df, p) in [
            (&A[..], &B[..], -8.1199934134132, 11.2535116146191, 4.89775576495962e-06),
            (&C[..], &D[..], -1.67104207450679, 17.321837907494, 0.112680969067509),
            (&E[..], &F[..], 0.0574059831633644, 7.53672940605452, 0.955714390288025),
        ] {
            let w = welch_t_test(x, y).unwrap();
            close(w.t, t);
            close(w.df, df);
            assert!((w.p_value - p).abs() < 1e-6, "p {} vs scipy's {p}", w.p_value);
            close(w.p_value, p);
        }
    }

    #[test]
    fn welch_confidence_intervals_match_scipy() {
        for (x, y, low, high) in [
            (&A[..], &B[..], -114.93486836870207, -66.02013163129786),
            (&C[..], &D[..], -10.864352719723135, 1.2532416086120488),
            (&E[..], &F[..], -0.9240929393600497, 0.9707596060267165),
        ] {
            let w = welch_t_test(x, y).unwrap();
            close(w.ci95_low, low);
            close(w.ci95_high, high);
            close(w.difference, (low + high) / 2.0);
        }
    }

    #[test]
    fn mann_whitney_matches_scipy_with_ties() {
        for (x, y, u, p) in [
            (&A[..], &B[..], 0.0, 0.000448668040378312),
            (&C[..], &D[..], 29.5, 0.0847787515992962),
            (&E[..], &F[..], 16.0, 0.927264473525232),
        ] {
            let m = mann_whitney_u(x, y).unwrap();
            assert_eq!(m.u, u);
            assert!((m.p_value - p).abs() < 1e-6, "p {} vs scipy's {p}", m.p_value);
            close(m.p_value, p);
        }
    }

    #[test]
    fn too_little_data_gives_no_test() {
        assert_eq!(welch_t_test(&[1.0], &[2.0, 3.0]), None);
        assert_eq!(welch_t_test(&[5.0, 5.0], &[5.0, 5.0]), None, "no spread anywhere");
        assert_eq!(mann_whitney_u(&[], &[1.0]), None);
        assert_eq!(mann_whitney_u(&[2.0, 2.0], &[2.0]), None, "all values tied");
    }
}
