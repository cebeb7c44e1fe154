//! Change points in a series: E-Divisive means (Matteson & James, 2014, with α = 1, the form Apache Otava and
//! MongoDB's signal processing use). The series is split where the energy distance between the two sides is
//! largest, each split kept only when a permutation test finds it significant, then each part is split again, until
//! no split is significant. No segment is shorter than the minimum segment, so a change shows once about that many
//! points lie at the new level (a split a little early may hold an old point or two): the minimum segment trades
//! detection delay for false alarms, measured in `docs/PERFORMANCE.md`.
//!
//! The divergence of a split at τ of a window, `m = τ − a` points left and `n = b − τ` right:
//! `Q̂(τ) = m·n/(m+n) · (2/(m·n)·Σ|xᵢ−yⱼ| − 2/(m(m−1))·Σ_{i<k}|xᵢ−xₖ| − 2/(n(n−1))·Σ_{j<l}|yⱼ−yₗ|)`.
//! Its p-value: each current window is shuffled on its own `permutations` times and the largest Q̂ of any window
//! is taken; `p = (1 + #{permuted ≥ observed}) / (1 + permutations)`, where a shuffle equal to the observed split
//! within rounding counts as "as high". The shuffles come from a fixed seed, so the
//! same history always gives the same change points (on every replica, on every read of a page).

use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::SeedableRng;

/// How change points are searched for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ChangePointSettings {
    /// A split is kept when its permutation p-value is at most this.
    pub alpha: f64,
    /// Fewest points on either side of a change point (at least 2: a side's spread needs two).
    pub min_segment: usize,
    /// Shuffles per significance test.
    pub permutations: u32,
}

impl ChangePointSettings {
    /// The fewest shuffles of a test: p-values in steps of 0.005.
    pub const PERMUTATIONS: u32 = 199;

    /// E-Divisive at significance `alpha`, each segment at least `min_segment` points long.
    pub fn new(alpha: f64, min_segment: usize) -> Self {
        // Enough shuffles that the smallest p-value, 1 / (1 + permutations), is a tenth of α or less.
        let enough = (10.0 / alpha).ceil().clamp(0.0, 100_000.0) as u32;
        Self { alpha, min_segment: min_segment.max(2), permutations: enough.saturating_sub(1).max(Self::PERMUTATIONS) }
    }

    /// How the search was made, in words for a page.
    pub fn describe(&self) -> String {
        format!(
            "E-Divisive means (energy distance, α = 1), each split kept when its permutation test over {} shuffles \
             gives p ≤ {}, segments of at least {} evaluations",
            self.permutations, self.alpha, self.min_segment
        )
    }
}

/// A change found in a series.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ChangePoint {
    /// Index of the first point of the new level.
    pub index: usize,
    /// The divergence of the split.
    pub q_hat: f64,
    /// The permutation test's p-value.
    pub p_value: f64,
    /// Mean of the segment before it (from the previous change point).
    pub mean_before: f64,
    /// Mean of the segment after it (to the next change point).
    pub mean_after: f64,
    /// Points in the segments before and after it.
    pub n: (usize, usize),
}

impl ChangePoint {
    /// The shift of the mean, percent of the level before; `None` from a level of zero.
    pub fn shift_pct(&self) -> Option<f64> {
        (self.mean_before != 0.0).then(|| (self.mean_after - self.mean_before) / self.mean_before.abs() * 100.0)
    }
}

/// The seed of the shuffles; any fixed value makes the answer reproducible.
const SEED: u64 = 0x5EED_C4A9_6E90_1175;

/// What a search found: the change points, and the p-value of the split it tested last and did not keep (`None`
/// when no split was long enough to test): what a series without a change scored, for adjusting several tests.
#[derive(Debug, Clone, PartialEq)]
pub struct Search {
    /// The significant change points, in index order.
    pub changes: Vec<ChangePoint>,
    /// The rejected split's p-value.
    pub rejected_p: Option<f64>,
}

/// The significant change points of `series` (oldest first), in index order. Non-finite values are not allowed:
/// the caller leaves out points without the figure.
pub fn change_points(series: &[f64], settings: &ChangePointSettings) -> Vec<ChangePoint> {
    search(series, settings).changes
}

/// The change points of `series` and the p-value of the last split tested and rejected.
pub fn search(series: &[f64], settings: &ChangePointSettings) -> Search {
    let min = settings.min_segment.max(2);
    let mut cuts: Vec<usize> = Vec::new();
    let mut rng = StdRng::seed_from_u64(SEED);
    let mut found: Vec<(usize, f64, f64)> = Vec::new();
    let mut rejected_p = None;
    loop {
        let windows = windows(series.len(), &cuts);
        let Some((index, q_hat)) = windows.iter().filter_map(|&(a, b)| best_split(&series[a..b], min, a)).max_by(
            |x, y| x.1.total_cmp(&y.1).then(y.0.cmp(&x.0)), // the earlier index on a tie
        ) else {
            break;
        };
        // A shuffle that puts the same values on each side gives the same Q̂, summed in another order: equal within
        // rounding, and it must count as "as high" (with few points, most shuffles are such ties).
        let as_high = q_hat - 1e-9 * q_hat.abs().max(1.0);
        let mut higher = 0u32;
        let mut shuffled = series.to_vec();
        for _ in 0..settings.permutations {
            let mut best = f64::NEG_INFINITY;
            for &(a, b) in &windows {
                let window = &mut shuffled[a..b];
                window.copy_from_slice(&series[a..b]);
                window.shuffle(&mut rng);
                if let Some((_, q)) = best_split(window, min, a) {
                    best = best.max(q);
                }
            }
            if best >= as_high {
                higher += 1;
            }
        }
        let p_value = f64::from(1 + higher) / f64::from(1 + settings.permutations);
        if p_value > settings.alpha {
            rejected_p = Some(p_value);
            break;
        }
        found.push((index, q_hat, p_value));
        cuts.push(index);
        cuts.sort_unstable();
    }
    found.sort_by_key(|&(index, ..)| index);
    let bounds: Vec<usize> = std::iter::once(0).chain(found.iter().map(|f| f.0)).chain([series.len()]).collect();
    let changes = found
        .iter()
        .enumerate()
        .map(|(i, &(index, q_hat, p_value))| {
            let (before, after) = (&series[bounds[i]..index], &series[index..bounds[i + 2]]);
            ChangePoint {
                index,
                q_hat,
                p_value,
                mean_before: mean(before),
                mean_after: mean(after),
                n: (before.len(), after.len()),
            }
        })
        .collect();
    Search { changes, rejected_p }
}

fn mean(values: &[f64]) -> f64 {
    values.iter().sum::<f64>() / values.len() as f64
}

/// The windows `[a, b)` between consecutive cuts.
fn windows(len: usize, cuts: &[usize]) -> Vec<(usize, usize)> {
    let bounds: Vec<usize> = std::iter::once(0).chain(cuts.iter().copied()).chain([len]).collect();
    bounds.windows(2).map(|w| (w[0], w[1])).collect()
}

/// The split of `window` with the largest Q̂, each side at least `min` long: (index in the series, Q̂), the window
/// starting at `offset`. `None` when the window is too short to split.
fn best_split(window: &[f64], min: usize, offset: usize) -> Option<(usize, f64)> {
    q_hats(window).into_iter().enumerate().filter(|&(tau, _)| tau >= min && window.len() - tau >= min).fold(
        None,
        |best, (tau, q)| match best {
            Some((_, b)) if b >= q => best,
            _ => Some((tau + offset, q)),
        },
    )
}

/// Q̂ of every split τ of `x` (τ points on the left); NaN where a side has fewer than 2 points. O(n²): moving the
/// split one point right moves that point's distances from the right side's sums to the left's.
pub fn q_hats(x: &[f64]) -> Vec<f64> {
    let len = x.len();
    let distance_to = |k: usize, range: std::ops::Range<usize>| range.map(|i| (x[k] - x[i]).abs()).sum::<f64>();
    let (mut cross, mut left) = (0.0, 0.0);
    let mut right: f64 = (0..len).map(|k| distance_to(k, k + 1..len)).sum();
    let mut out = vec![f64::NAN; len];
    for (tau, q) in out.iter_mut().enumerate() {
        if tau > 0 {
            // The point tau − 1 moves from the right side to the left.
            let k = tau - 1;
            let to_left = distance_to(k, 0..k);
            let to_right = distance_to(k, tau..len);
            left += to_left;
            right -= to_right;
            cross += to_right - to_left;
        }
        let (m, n) = (tau as f64, (len - tau) as f64);
        if tau >= 2 && len - tau >= 2 {
            *q = m * n / (m + n)
                * (2.0 * cross / (m * n) - 2.0 * left / (m * (m - 1.0)) - 2.0 * right / (n * (n - 1.0)));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Q̂ of a split computed straight from its definition, as a second implementation.
    fn q_hat_by_definition(x: &[f64], tau: usize) -> f64 {
        let (l, r) = x.split_at(tau);
        let (m, n) = (l.len() as f64, r.len() as f64);
        let cross: f64 = l.iter().flat_map(|a| r.iter().map(move |b| (a - b).abs())).sum();
        let within = |s: &[f64]| -> f64 {
            (0..s.len()).flat_map(|i| (i + 1..s.len()).map(move |k| (i, k))).map(|(i, k)| (s[i] - s[k]).abs()).sum()
        };
        m * n / (m + n)
            * (2.0 * cross / (m * n) - 2.0 * within(l) / (m * (m - 1.0)) - 2.0 * within(r) / (n * (n - 1.0)))
    }

    /// A series with a step at 12 and some noise, and Q̂ at every split as numpy 2.4 computes it from the definition:
    /// `d = abs(x[:, None] - x[None, :])`, for τ in 2..n−2:
    /// `m*n/(m+n) * (2*d[:τ, τ:].sum()/(m*n) - d[:τ, :τ].sum()/(m*(m-1)) - d[τ:, τ:].sum()/(n*(n-1)))`
    /// (the full square sums each pair twice, hence no factor 2 on the last two terms).
    const STEP: [f64; 20] = [
        101.0, 99.0, 103.0, 98.0, 100.0, 102.0, 97.0, 101.0, 100.0, 99.0, 103.0, 100.0, 121.0, 118.0, 122.0, 119.0,
        120.0, 123.0, 117.0, 121.0,
    ];
    const NUMPY_Q_HATS: [(usize, f64); 5] = [
        (2, 11.470_588_235_294_12),
        (6, 42.369_230_769_230_77),
        (12, 168.425_974_025_974_03),
        (15, 80.014_285_714_285_7),
        (18, 21.529_411_764_705_888),
    ];

    #[test]
    fn q_hats_match_numpy_and_the_definition() {
        let q = q_hats(&STEP);
        for (tau, expected) in NUMPY_Q_HATS {
            assert!((q[tau] - expected).abs() < 1e-9, "Q̂({tau}) = {} vs numpy's {expected}", q[tau]);
        }
        for (tau, &q) in q.iter().enumerate().take(STEP.len() - 1).skip(2) {
            assert!((q - q_hat_by_definition(&STEP, tau)).abs() < 1e-9, "τ = {tau}");
        }
        assert!(q[0].is_nan() && q[1].is_nan() && q[19].is_nan(), "a side of one point has no spread");
    }

    #[test]
    fn a_step_is_found_where_it_is_with_its_shift() {
        let found = change_points(&STEP, &ChangePointSettings::new(0.05, 5));
        assert_eq!(found.len(), 1, "{found:?}");
        let cp = found[0];
        assert_eq!((cp.index, cp.n), (12, (12, 8)));
        assert!((cp.mean_before - 100.25).abs() < 1e-9 && (cp.mean_after - 120.125).abs() < 1e-9);
        assert!((cp.shift_pct().unwrap() - 19.825_436_408_977_556).abs() < 1e-9);
        assert!(cp.p_value <= 0.005 + 1e-12, "no shuffle of a clean step comes near it: p = {}", cp.p_value);
    }

    #[test]
    fn two_steps_are_both_found_and_the_segments_between_them_are_measured() {
        let series: Vec<f64> = (0..30).map(|i| [100.0, 130.0, 90.0][i / 10] + (i % 3) as f64).collect();
        let found = change_points(&series, &ChangePointSettings::new(0.05, 4));
        let at: Vec<usize> = found.iter().map(|c| c.index).collect();
        assert_eq!(at, [10, 20]);
        assert_eq!(found[1].n, (10, 10), "the segment before the second change starts at the first");
        assert!((found[1].mean_before - 131.0).abs() < 1e-9 && (found[1].mean_after - 91.1).abs() < 1e-9);
    }

    #[test]
    fn a_flat_series_has_none_and_a_late_change_waits_for_its_segment() {
        let noise: Vec<f64> = (0..24).map(|i| 100.0 + ((i * 7) % 5) as f64).collect();
        assert!(change_points(&noise, &ChangePointSettings::new(0.05, 5)).is_empty());
        // The last 4 points are higher: with segments of 4 the change is where it is; with segments of 5 the
        // nearest split leaves one old point in the new segment.
        let late: Vec<f64> = noise.iter().enumerate().map(|(i, v)| if i >= 20 { v + 50.0 } else { *v }).collect();
        assert_eq!(change_points(&late, &ChangePointSettings::new(0.05, 4)).last().map(|c| c.index), Some(20));
        assert_eq!(change_points(&late, &ChangePointSettings::new(0.05, 5)).last().map(|c| c.index), Some(19));
        // The last 2 points alone cannot make a segment of 4 that differs enough from the rest.
        let two: Vec<f64> = noise.iter().enumerate().map(|(i, v)| if i >= 22 { v + 50.0 } else { *v }).collect();
        assert!(change_points(&two, &ChangePointSettings::new(0.05, 8)).is_empty());
        assert!(change_points(&[], &ChangePointSettings::new(0.05, 2)).is_empty());
        assert!(change_points(&[1.0, 2.0, 3.0], &ChangePointSettings::new(0.05, 2)).is_empty());
    }

    #[test]
    fn shuffles_that_tie_with_the_split_count_against_it() {
        // Five old points and one new: the split 3 | 3 is the only one allowed, and 2 of its 20 arrangements of
        // sides give the largest Q̂, so the exact permutation p-value is 0.1 (numpy over all 720 orders). Ties
        // lost to rounding made it come out below 0.05, a change point from one slow evaluation.
        let blip = [
            23.471_337_087_314_136,
            21.175_613_426_238_34,
            23.736_143_000_501_59,
            24.512_012_547_855_115,
            25.222_746_973_070_42,
            44.851_340_577_232_385,
        ];
        let settings = ChangePointSettings { permutations: 1_999, ..ChangePointSettings::new(0.05, 3) };
        let tested = change_points(&blip, &ChangePointSettings { alpha: 1.0, ..settings });
        assert!((tested[0].p_value - 0.1).abs() < 0.02, "p = {} vs the exact 0.1", tested[0].p_value);
        assert!(change_points(&blip, &settings).is_empty());
    }

    #[test]
    fn a_strict_alpha_gets_enough_shuffles_to_reach_it() {
        assert_eq!(ChangePointSettings::new(0.05, 5).permutations, 199);
        assert_eq!(ChangePointSettings::new(0.01, 5).permutations, 999);
        assert_eq!(ChangePointSettings::new(0.001, 5).permutations, 9_999);
        let strict = change_points(&STEP, &ChangePointSettings::new(0.001, 5));
        assert_eq!(strict.iter().map(|c| c.index).collect::<Vec<_>>(), [12]);
        assert!(strict[0].p_value <= 0.001, "p = {}", strict[0].p_value);
    }

    #[test]
    fn a_search_without_a_change_keeps_the_rejected_splits_p_value() {
        let noise: Vec<f64> = (0..24).map(|i| 100.0 + ((i * 7) % 5) as f64).collect();
        let found = search(&noise, &ChangePointSettings::new(0.05, 5));
        assert!(found.changes.is_empty() && found.rejected_p.is_some_and(|p| p > 0.05), "{found:?}");
        assert_eq!(search(&noise[..6], &ChangePointSettings::new(0.05, 5)).rejected_p, None, "nothing to test");
    }

    #[test]
    fn the_same_series_always_gives_the_same_answer() {
        let s = ChangePointSettings::new(0.05, 5);
        assert_eq!(change_points(&STEP, &s), change_points(&STEP, &s));
    }
}
