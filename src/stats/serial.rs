//! Whether consecutive requests of a run are independent, as Welch's test assumes: the lag-1 autocorrelation of
//! their total times in send order, and the effective sample size it implies, `n·(1 − r₁)/(1 + r₁)` (the AR(1)
//! variance inflation of a mean: Bartlett 1946; Bayley & Hammersley 1946). A server warming up, a queue
//! building or a neighbour's burst makes successive requests alike, and `n` of them then carry less than `n`
//! requests' worth of evidence: a test that counts them all is too sure. The size is used only when r₁ is
//! beyond what independent requests show by chance (r₁ > 1.96/√n, the white-noise bound), so an ordinary run
//! is judged on its own n.

/// The fewest values whose lag-1 autocorrelation is read (below, its sampling error swamps it).
pub const MIN_SERIAL_VALUES: usize = 10;

/// The lag-1 autocorrelation of `values` in their order (the usual estimator, as `statsmodels.tsa.acf` computes it:
/// Σ(xᵢ − x̄)(xᵢ₊₁ − x̄) / Σ(xᵢ − x̄)²); `None` with fewer than [`MIN_SERIAL_VALUES`] values or no spread.
pub fn lag1_autocorrelation(values: &[f64]) -> Option<f64> {
    if values.len() < MIN_SERIAL_VALUES {
        return None;
    }
    let mean = values.iter().sum::<f64>() / values.len() as f64;
    let denominator: f64 = values.iter().map(|v| (v - mean).powi(2)).sum();
    if denominator <= 0.0 || !denominator.is_finite() {
        return None;
    }
    let numerator: f64 = values.windows(2).map(|w| (w[0] - mean) * (w[1] - mean)).sum();
    Some(numerator / denominator)
}

/// The effective sample size of `n` values whose lag-1 autocorrelation is `r1`, when r₁ exceeds the white-noise
/// bound 1.96/√n; `None` when it does not (the values count as independent). At least 2.
pub fn effective_size(n: usize, r1: f64) -> Option<f64> {
    let n = n as f64;
    (r1 > 1.96 / n.sqrt()).then(|| (n * (1.0 - r1) / (1.0 + r1)).max(2.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_numpy_on_a_warming_server() {
        // numpy 2.4.6, apart from this code: m = x.mean(); ((x[:-1]-m)*(x[1:]-m)).sum() / ((x-m)**2).sum().
        let warming = [300.0, 280.0, 260.0, 250.0, 240.0, 230.0, 225.0, 220.0, 218.0, 215.0, 214.0, 212.0];
        let r1 = lag1_autocorrelation(&warming).unwrap();
        assert!((r1 - 0.6856626297149365).abs() < 1e-12, "{r1}");
        let n_eff = effective_size(warming.len(), r1).unwrap();
        assert!((n_eff - 12.0 * (1.0 - r1) / (1.0 + r1)).abs() < 1e-12 && n_eff < 4.0, "{n_eff}");
    }

    #[test]
    fn alternating_and_short_runs_count_as_they_are() {
        let alternating = [100.0, 200.0, 100.0, 200.0, 100.0, 200.0, 100.0, 200.0, 100.0, 200.0];
        let r1 = lag1_autocorrelation(&alternating).unwrap();
        assert!(r1 < 0.0, "{r1}");
        assert_eq!(effective_size(10, r1), None, "negative correlation is not counted against a run");
        assert_eq!(effective_size(100, 0.1), None, "within the white-noise bound 0.196");
        assert_eq!(lag1_autocorrelation(&[1.0, 2.0, 3.0]), None, "too few");
        assert_eq!(lag1_autocorrelation(&[5.0; 12]), None, "no spread");
    }
}
