//! Tests of one figure against the same figure over a schedule's recent evaluations (a window), as regression
//! trackers offer them: where a pinned baseline is one run, a window knows how much the figure moves from one
//! evaluation to the next. Each gives the window's center (what the change is measured from), a limit the figure
//! must pass to count, and for the two parametric tests a one-sided p-value:
//!
//! - **z-score**: center the window's mean, limit `mean ± z₁₋α · sd` (sample sd, n − 1), p the normal tail of
//!   `(x − mean) / sd`;
//! - **log-normal**: the same on the logarithms (latencies are skewed and positive): center the geometric mean,
//!   limit `exp(mean_ln ± z₁₋α · sd_ln)`;
//! - **IQR**: center the median, limit Tukey's fence `Q3 + 1.5 · IQR` (or `Q1 − 1.5 · IQR` where lower is worse),
//!   quartiles by linear interpolation (numpy's default);
//! - **delta-IQR**: the relative change from the last evaluation against the fence of the window's relative changes
//!   between consecutive evaluations: center the last value, limit `last · (1 + Q3_δ + 1.5 · IQR_δ)`.
//!
//! Checked against scipy 1.17.1 and numpy 2 in the tests.

use statrs::distribution::{ContinuousCDF, Normal};

use super::percentile;

/// Tukey's fence multiplier.
pub const FENCE: f64 = 1.5;

/// A test of a figure against a window of its earlier values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HistoryTest {
    /// The normal tail of the window's mean and sd.
    ZScore,
    /// The z-score of the logarithms.
    LogNormal,
    /// Tukey's fence on the window.
    Iqr,
    /// Tukey's fence on the window's relative changes between consecutive evaluations.
    DeltaIqr,
}

impl HistoryTest {
    /// The fewest window values the test can say anything with (a spread needs two; a change between consecutive
    /// values, three).
    pub fn fewest(self) -> usize {
        match self {
            HistoryTest::ZScore | HistoryTest::LogNormal => 2,
            HistoryTest::Iqr => 4,
            HistoryTest::DeltaIqr => 5,
        }
    }
}

/// Which way a figure gets worse.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Worse {
    /// Latency, cost, errors.
    Higher,
    /// Throughput.
    Lower,
}

/// What a history test found.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HistoryVerdict {
    /// The window's center the change is measured from.
    pub center: f64,
    /// The limit the figure had to pass.
    pub limit: f64,
    /// The figure is past the limit, the worse way.
    pub beyond: bool,
    /// One-sided p-value of the figure under the window's distribution (z-score and log-normal).
    pub p_value: Option<f64>,
    /// Window values used.
    pub n: usize,
}

/// Why a history test could not judge.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum NotJudged {
    /// Fewer window values than the test needs.
    TooFew {
        /// Values in the window.
        have: usize,
        /// Values needed.
        need: usize,
    },
    /// The window's values are all equal (no spread to judge by).
    NoSpread,
    /// A log-normal window or figure with a value at or below zero.
    NotPositive,
}

impl NotJudged {
    /// In words.
    pub fn describe(&self) -> String {
        match self {
            NotJudged::TooFew { have, need } => {
                format!("{have} earlier evaluations in the window; the test needs {need}")
            }
            NotJudged::NoSpread => "the window's values are all equal: no spread to judge by".into(),
            NotJudged::NotPositive => "a log-normal test needs values above zero".into(),
        }
    }
}

/// Judges figure `x` against `window` (earlier values, oldest first) with `test` at one-sided level `alpha`;
/// `need` is the caller's minimum window (at least the test's own).
pub fn judge(
    test: HistoryTest,
    window: &[f64],
    x: f64,
    alpha: f64,
    worse: Worse,
    need: usize,
) -> Result<HistoryVerdict, NotJudged> {
    let need = need.max(test.fewest());
    if window.len() < need {
        return Err(NotJudged::TooFew { have: window.len(), need });
    }
    let sign = match worse {
        Worse::Higher => 1.0,
        Worse::Lower => -1.0,
    };
    let past = |limit: f64| sign * (x - limit) > 0.0;
    let n = window.len();
    match test {
        HistoryTest::ZScore | HistoryTest::LogNormal => {
            let log = test == HistoryTest::LogNormal;
            if log && (x <= 0.0 || window.iter().any(|v| *v <= 0.0)) {
                return Err(NotJudged::NotPositive);
            }
            let scale = |v: f64| if log { v.ln() } else { v };
            let values: Vec<f64> = window.iter().map(|v| scale(*v)).collect();
            let mean = values.iter().sum::<f64>() / n as f64;
            let sd = (values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n as f64 - 1.0)).sqrt();
            if sd == 0.0 || !sd.is_finite() {
                return Err(NotJudged::NoSpread);
            }
            let normal = Normal::standard();
            let z = sign * (scale(x) - mean) / sd;
            let bound = mean + sign * normal.inverse_cdf(1.0 - alpha) * sd;
            let unscale = |v: f64| if log { v.exp() } else { v };
            let limit = unscale(bound);
            Ok(HistoryVerdict { center: unscale(mean), limit, beyond: past(limit), p_value: Some(normal.sf(z)), n })
        }
        HistoryTest::Iqr => {
            let (q1, median, q3) = quartiles(window);
            if q3 == q1 {
                return Err(NotJudged::NoSpread);
            }
            let limit = if sign > 0.0 { q3 + FENCE * (q3 - q1) } else { q1 - FENCE * (q3 - q1) };
            Ok(HistoryVerdict { center: median, limit, beyond: past(limit), p_value: None, n })
        }
        HistoryTest::DeltaIqr => {
            let deltas: Vec<f64> =
                window.windows(2).filter(|w| w[0] != 0.0).map(|w| (w[1] - w[0]) / w[0].abs()).collect();
            if deltas.len() < 4 {
                return Err(NotJudged::TooFew { have: window.len(), need: need.max(5) });
            }
            let (q1, _, q3) = quartiles(&deltas);
            if q3 == q1 {
                return Err(NotJudged::NoSpread);
            }
            let fence = if sign > 0.0 { q3 + FENCE * (q3 - q1) } else { q1 - FENCE * (q3 - q1) };
            let last = window[n - 1];
            let limit = last + fence * last.abs();
            Ok(HistoryVerdict { center: last, limit, beyond: past(limit), p_value: None, n })
        }
    }
}

/// Q1, median and Q3 by linear interpolation.
fn quartiles(values: &[f64]) -> (f64, f64, f64) {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let at = |p| percentile(&sorted, p).unwrap_or(f64::NAN);
    (at(25.0), at(50.0), at(75.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Ten earlier p95 figures and a slower one; every expected value from scipy 1.17.1 / numpy 2.4:
    /// `m, s = w.mean(), w.std(ddof=1)`, `norm.ppf(0.95)`, `norm.sf((x - m) / s)`, the same on `np.log(w)`,
    /// `np.percentile(w, [25, 75])`, `np.diff(w) / w[:-1]`.
    const WINDOW: [f64; 10] = [812.0, 790.0, 845.0, 801.0, 830.0, 795.0, 860.0, 808.0, 822.0, 815.0];
    const X: f64 = 905.0;

    fn close(actual: f64, expected: f64) {
        assert!((actual - expected).abs() <= 1e-9 * expected.abs().max(1e-3), "{actual} vs {expected}");
    }

    #[test]
    fn the_z_score_matches_scipy() {
        let v = judge(HistoryTest::ZScore, &WINDOW, X, 0.05, Worse::Higher, 5).unwrap();
        close(v.center, 817.8);
        close(v.limit, 854.167_428_926_686_2);
        close(v.p_value.unwrap(), 4.007_557_911_064_277e-5);
        assert!(v.beyond && v.n == 10);
        let below = judge(HistoryTest::ZScore, &WINDOW, 850.0, 0.05, Worse::Higher, 5).unwrap();
        assert!(!below.beyond, "850 is inside 854.17");
    }

    #[test]
    fn the_log_normal_test_matches_scipy() {
        let v = judge(HistoryTest::LogNormal, &WINDOW, X, 0.05, Worse::Higher, 5).unwrap();
        close(v.center, 817.533_731_060_190_1);
        close(v.limit, 854.426_802_552_019_6);
        close(v.p_value.unwrap(), 7.600_031_441_524_168e-5);
        assert_eq!(
            judge(HistoryTest::LogNormal, &[1.0, 0.0, 2.0], 3.0, 0.05, Worse::Higher, 2),
            Err(NotJudged::NotPositive)
        );
    }

    #[test]
    fn the_iqr_fences_match_numpy() {
        let v = judge(HistoryTest::Iqr, &WINDOW, X, 0.05, Worse::Higher, 5).unwrap();
        close(v.center, 813.5);
        close(v.limit, 828.0 + 1.5 * (828.0 - 802.75));
        assert!(v.beyond);
        let delta = judge(HistoryTest::DeltaIqr, &WINDOW, X, 0.05, Worse::Higher, 5).unwrap();
        close(delta.center, 815.0);
        close(delta.limit, 940.318_370_861_724);
        assert!(!delta.beyond, "+11.0 % from the last is within the window's usual moves (fence +15.4 %)");
    }

    #[test]
    fn lower_is_worse_mirrors_every_limit() {
        let z = judge(HistoryTest::ZScore, &WINDOW, 700.0, 0.05, Worse::Lower, 5).unwrap();
        close(z.limit, 817.8 - (854.167_428_926_686_2 - 817.8));
        assert!(z.beyond && z.p_value.unwrap() < 1e-6);
        assert!(!judge(HistoryTest::ZScore, &WINDOW, X, 0.05, Worse::Lower, 5).unwrap().beyond, "faster is fine");
        let iqr = judge(HistoryTest::Iqr, &WINDOW, 760.0, 0.05, Worse::Lower, 5).unwrap();
        close(iqr.limit, 802.75 - 1.5 * (828.0 - 802.75));
        assert!(iqr.beyond);
    }

    #[test]
    fn a_short_or_flat_window_is_not_judged_and_says_why() {
        let few = judge(HistoryTest::ZScore, &WINDOW[..3], X, 0.05, Worse::Higher, 5).unwrap_err();
        assert_eq!(few, NotJudged::TooFew { have: 3, need: 5 });
        assert_eq!(few.describe(), "3 earlier evaluations in the window; the test needs 5");
        assert_eq!(
            judge(HistoryTest::DeltaIqr, &WINDOW[..4], X, 0.05, Worse::Higher, 2).unwrap_err(),
            NotJudged::TooFew { have: 4, need: 5 }
        );
        assert_eq!(judge(HistoryTest::Iqr, &[5.0; 8], 9.0, 0.05, Worse::Higher, 5), Err(NotJudged::NoSpread));
    }
}
