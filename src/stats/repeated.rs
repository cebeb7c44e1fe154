//! Repeated runs: a figure measured once per repetition is reported as its mean with a t-based 95 % confidence
//! interval over the repetitions (each repetition one observation: requests inside one run share its conditions,
//! so they are not independent of each other) and the run-to-run coefficient of variation; a Kruskal–Wallis test
//! on the requests of every repetition says when the repetitions disagree beyond the noise inside each.
//! Checked against scipy (`scipy.stats.t.interval`, `scipy.stats.kruskal`). The types reach the browser (the
//! repeated run's page shows them); the computations stay on the server, with the statistics library.

use serde::{Deserialize, Serialize};
#[cfg(feature = "ssr")]
use statrs::distribution::{ChiSquared, ContinuousCDF, StudentsT};

/// Confidence of the intervals.
pub const CONFIDENCE: f64 = 0.95;

/// Below this Kruskal–Wallis p-value, repetitions are said to disagree.
pub const DISAGREEMENT_P: f64 = 0.01;

/// One figure over the repetitions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RepeatedFigure {
    /// The value of each repetition that had one, in order.
    pub values: Vec<f64>,
    /// Their mean.
    pub mean: f64,
    /// The 95 % interval of the mean, t-based with n − 1 degrees of freedom; `None` with fewer than 2 values.
    pub ci_low: Option<f64>,
    /// Its upper end.
    pub ci_high: Option<f64>,
    /// Sample standard deviation / mean; `None` with fewer than 2 values or a zero mean.
    pub cv: Option<f64>,
}

/// Mean, t interval and CV of `values`; `None` when empty.
#[cfg(feature = "ssr")]
pub fn repeated_figure(values: &[f64]) -> Option<RepeatedFigure> {
    if values.is_empty() {
        return None;
    }
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    let (mut ci_low, mut ci_high, mut cv) = (None, None, None);
    if values.len() >= 2 {
        let sd = (values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
        if let Ok(t) = StudentsT::new(0.0, 1.0, n - 1.0) {
            let half = t.inverse_cdf(0.5 + CONFIDENCE / 2.0) * sd / n.sqrt();
            (ci_low, ci_high) = (Some(mean - half), Some(mean + half));
        }
        cv = (mean != 0.0).then(|| sd / mean.abs());
    }
    Some(RepeatedFigure { values: values.to_vec(), mean, ci_low, ci_high, cv })
}

/// A Kruskal–Wallis H test: do these groups come from one distribution?
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct KruskalWallis {
    /// H, corrected for ties.
    pub h: f64,
    /// Against χ² with groups − 1 degrees of freedom.
    pub p_value: f64,
}

/// The test over `groups` (empty groups ignored); `None` with fewer than 2 non-empty groups or all values equal.
#[cfg(feature = "ssr")]
pub fn kruskal_wallis(groups: &[Vec<f64>]) -> Option<KruskalWallis> {
    let groups: Vec<&Vec<f64>> = groups.iter().filter(|g| !g.is_empty()).collect();
    if groups.len() < 2 {
        return None;
    }
    let mut all: Vec<(f64, usize)> =
        groups.iter().enumerate().flat_map(|(g, values)| values.iter().map(move |v| (*v, g))).collect();
    all.sort_by(|a, b| a.0.total_cmp(&b.0));
    let n = all.len() as f64;
    let mut rank_sums = vec![0.0; groups.len()];
    let mut ties = 0.0;
    let mut i = 0;
    while i < all.len() {
        let mut j = i;
        while j + 1 < all.len() && all[j + 1].0 == all[i].0 {
            j += 1;
        }
        // Tied values share the mean of their ranks (1-based).
        let rank = (i + j) as f64 / 2.0 + 1.0;
        for item in &all[i..=j] {
            rank_sums[item.1] += rank;
        }
        let t = (j - i + 1) as f64;
        ties += t * t * t - t;
        i = j + 1;
    }
    let h_raw = 12.0 / (n * (n + 1.0))
        * rank_sums.iter().zip(&groups).map(|(r, g)| r * r / g.len() as f64).sum::<f64>()
        - 3.0 * (n + 1.0);
    let correction = 1.0 - ties / (n * n * n - n);
    if correction <= 0.0 {
        return None;
    }
    let h = h_raw / correction;
    let chi = ChiSquared::new(groups.len() as f64 - 1.0).ok()?;
    Some(KruskalWallis { h, p_value: 1.0 - chi.cdf(h) })
}

#[cfg(all(test, feature = "ssr"))]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9 * b.abs().max(1.0)
    }

    /// scipy 1.x: `st.t.interval(0.95, n-1, loc=mean, scale=st.sem(a))`, `np.std(a, ddof=1)/mean`.
    #[test]
    fn t_intervals_match_scipy() {
        let figure = repeated_figure(&[101.2, 98.7, 103.5, 99.9, 100.4]).unwrap();
        assert!(close(figure.mean, 100.73999999999998));
        assert!(close(figure.ci_low.unwrap(), 98.51780299283648), "{figure:?}");
        assert!(close(figure.ci_high.unwrap(), 102.96219700716348), "{figure:?}");
        assert!(close(figure.cv.unwrap(), 0.017765462686659222));
        let two = repeated_figure(&[12.0, 15.5]).unwrap();
        assert!(close(two.ci_low.unwrap(), -8.48585828830571) && close(two.ci_high.unwrap(), 35.98585828830571));
        let one = repeated_figure(&[7.0]).unwrap();
        assert_eq!((one.mean, one.ci_low, one.cv), (7.0, None, None), "one repetition has no interval");
        assert_eq!(repeated_figure(&[]), None);
    }

    /// scipy: `st.kruskal(g1, g2, g3)` (ties corrected).
    #[test]
    fn kruskal_wallis_matches_scipy() {
        let groups = vec![
            vec![1.0, 2.0, 3.0, 4.0, 5.0, 5.0, 6.0],
            vec![4.0, 5.0, 6.0, 7.0, 8.0, 8.0],
            vec![2.0, 2.0, 3.0, 9.0, 10.0],
        ];
        let test = kruskal_wallis(&groups).unwrap();
        assert!(close(test.h, 3.392386923421402) && close(test.p_value, 0.183380241080617), "{test:?}");
        let test = kruskal_wallis(&[vec![1.0, 2.0, 3.0], vec![1.5, 2.5, 3.5]]).unwrap();
        assert!(close(test.h, 0.42857142857142705) && close(test.p_value, 0.5126907602619241), "{test:?}");
        assert_eq!(kruskal_wallis(&[vec![1.0, 2.0], vec![]]), None);
        assert_eq!(kruskal_wallis(&[vec![3.0, 3.0], vec![3.0]]), None, "all equal: nothing to test");
    }
}
