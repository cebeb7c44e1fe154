//! Several tests made at once: Benjamini–Hochberg's adjusted p-values, which keep the expected share of false
//! discoveries among the tests called significant at α (scipy's `false_discovery_control(ps, method="bh")`).

/// The adjusted p-value of each of `p_values`, in their order: `min over j ≥ i of (m / j) · p₍ⱼ₎`, at most 1.
pub fn benjamini_hochberg(p_values: &[f64]) -> Vec<f64> {
    let m = p_values.len();
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&a, &b| p_values[a].total_cmp(&p_values[b]));
    let mut adjusted = vec![0.0; m];
    let mut running = 1.0_f64;
    for (rank, &i) in order.iter().enumerate().rev() {
        running = running.min(p_values[i] * m as f64 / (rank + 1) as f64);
        adjusted[i] = running.min(1.0);
    }
    adjusted
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adjusted_p_values_match_scipy() {
        // scipy 1.17.1: false_discovery_control([0.01, 0.04, 0.03, 0.2], method='bh')
        let cases: [(&[f64], &[f64]); 2] = [
            (&[0.01, 0.04, 0.03, 0.2], &[0.04, 0.053_333_333_333_333_33, 0.053_333_333_333_333_33, 0.2]),
            (&[0.001, 0.049, 0.6], &[0.003, 0.073_500_000_000_000_01, 0.6]),
        ];
        for (p, expected) in cases {
            let adjusted = benjamini_hochberg(p);
            for (a, e) in adjusted.iter().zip(expected) {
                assert!((a - e).abs() < 1e-12, "{adjusted:?} vs scipy's {expected:?}");
            }
        }
        assert_eq!(benjamini_hochberg(&[0.02]), [0.02], "one test is not adjusted");
        assert!(benjamini_hochberg(&[]).is_empty());
    }
}
