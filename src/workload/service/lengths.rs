//! Drawing lengths: each draw is the distribution's quantile (the inverse of its CDF) at a uniform number from a
//! seeded generator, rounded to whole tokens and clipped to the distribution's range. One method for every shape,
//! checked against scipy's `ppf` in the tests; a seed repeats the lengths exactly.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use statrs::distribution::{ContinuousCDF, Normal};

use crate::model::LengthDist;

/// The distribution's continuous quantile at `p` in `(0, 1)`, before rounding and clipping (normal and
/// log-normal); for the discrete shapes, the length itself.
pub fn quantile(dist: &LengthDist, p: f64) -> f64 {
    let z = || Normal::standard().inverse_cdf(p);
    match dist {
        LengthDist::Fixed { tokens } => f64::from(*tokens),
        LengthDist::Uniform { min, max } => {
            let span = f64::from(max - min) + 1.0;
            (f64::from(*min) + (p * span).floor()).min(f64::from(*max))
        }
        LengthDist::Normal { mean, sd, .. } => mean + sd * z(),
        LengthDist::LogNormal { median, sigma, .. } => median * (sigma * z()).exp(),
        LengthDist::Histogram { bins } => {
            let total: f64 = bins.iter().map(|(_, weight)| weight).sum();
            let target = p * total;
            let mut reached = 0.0;
            for (tokens, weight) in bins {
                reached += weight;
                if *weight > 0.0 && reached >= target {
                    return f64::from(*tokens);
                }
            }
            // Rounding left `reached` a hair below `target` at p near 1: the last bin that can be drawn.
            bins.iter().rev().find(|(_, weight)| *weight > 0.0).map_or(1.0, |(tokens, _)| f64::from(*tokens))
        }
    }
}

/// The whole length at `p`: the quantile rounded to the nearest token and clipped to the range.
fn length_at(dist: &LengthDist, p: f64) -> u32 {
    let (low, high) = match dist {
        LengthDist::Normal { min, max, .. } | LengthDist::LogNormal { min, max, .. } => (*min, *max),
        _ => (1, u32::MAX),
    };
    let x = quantile(dist, p);
    // NaN cannot come from a validated distribution; ±∞ (p at 0 or 1) lands on the range's ends.
    x.round().clamp(f64::from(low), f64::from(high)) as u32
}

/// A stream of lengths from one distribution, repeatable from its seed.
pub struct LengthDraws {
    dist: LengthDist,
    rng: StdRng,
}

impl LengthDraws {
    /// Draws from `dist` (validated) with `seed`.
    pub fn new(dist: LengthDist, seed: u64) -> Self {
        Self { dist, rng: StdRng::seed_from_u64(seed) }
    }

    /// The next length.
    pub fn next_length(&mut self) -> u32 {
        // In (0, 1]: the quantile at exactly 0 is -∞ for the unbounded shapes.
        let p = 1.0 - self.rng.gen::<f64>();
        length_at(&self.dist, p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PS: [f64; 8] = [1e-6, 0.001, 0.025, 0.3, 0.5, 0.9, 0.999, 1.0 - 1e-6];

    /// `scipy.stats.norm(1000, 100).ppf(p)` and `scipy.stats.lognorm(s=0.8, scale=300).ppf(p)` (scipy's
    /// log-normal of median `scale` and σ `s`), scipy 1.16.
    #[test]
    fn the_normal_and_log_normal_quantiles_are_scipys() {
        let cases = [
            (
                LengthDist::Normal { mean: 1000.0, sd: 100.0, min: 1, max: 5000 },
                [
                    524.6575691177102,
                    690.9767693832187,
                    804.0036015459946,
                    947.5599487291959,
                    1000.0,
                    1128.15515655446,
                    1309.0232306167813,
                    1475.3424308817087,
                ],
            ),
            (
                LengthDist::LogNormal { median: 300.0, sigma: 0.8, min: 1, max: 100_000 },
                [
                    6.692871652778099,
                    25.32005146158438,
                    62.54030863531522,
                    197.20860250937653,
                    300.0,
                    836.3303805747006,
                    3554.495145341554,
                    13447.14267189392,
                ],
            ),
        ];
        for (dist, scipy) in cases {
            for (p, expected) in PS.into_iter().zip(scipy) {
                let ours = quantile(&dist, p);
                assert!(((ours - expected) / expected).abs() < 1e-9, "{dist:?} at {p}: {ours}, scipy {expected}");
            }
        }
    }

    fn mean_and_sd(draws: &[u32]) -> (f64, f64) {
        let n = draws.len() as f64;
        let mean = draws.iter().map(|&d| f64::from(d)).sum::<f64>() / n;
        let var = draws.iter().map(|&d| (f64::from(d) - mean).powi(2)).sum::<f64>() / (n - 1.0);
        (mean, var.sqrt())
    }

    /// The mean and standard deviation of whole, clipped draws, computed in scipy from the CDF: P(length = k) is
    /// P(k − ½ < X < k + ½), with the tails beyond the range at its ends. 100,000 draws land within 4 standard
    /// errors of the mean and 2 % of the standard deviation.
    #[test]
    fn rounded_clipped_draws_have_the_mean_and_spread_scipy_computes() {
        let cases = [
            (
                LengthDist::Normal { mean: 1000.0, sd: 100.0, min: 850, max: 1200 },
                1002.0815776451486,
                92.14542203528033,
            ),
            (
                LengthDist::LogNormal { median: 300.0, sigma: 0.8, min: 20, max: 2000 },
                406.8798290331131,
                349.71227363912686,
            ),
        ];
        for (dist, mean, sd) in cases {
            let mut draws = LengthDraws::new(dist.clone(), 11);
            let lengths: Vec<u32> = (0..100_000).map(|_| draws.next_length()).collect();
            let (got_mean, got_sd) = mean_and_sd(&lengths);
            let standard_error = sd / 100_000f64.sqrt();
            assert!((got_mean - mean).abs() < 4.0 * standard_error, "{dist:?}: mean {got_mean}, scipy {mean}");
            assert!((got_sd / sd - 1.0).abs() < 0.02, "{dist:?}: sd {got_sd}, scipy {sd}");
            let (low, high) = match dist {
                LengthDist::Normal { min, max, .. } | LengthDist::LogNormal { min, max, .. } => (min, max),
                _ => unreachable!(),
            };
            assert!(lengths.iter().all(|l| (low..=high).contains(l)), "clipped to {low}..={high}");
        }
    }

    #[test]
    fn uniform_and_histogram_draws_come_in_their_proportions() {
        let mut uniform = LengthDraws::new(LengthDist::Uniform { min: 10, max: 13 }, 5);
        let mut counts = [0u32; 4];
        for _ in 0..40_000 {
            counts[(uniform.next_length() - 10) as usize] += 1;
        }
        assert!(counts.iter().all(|&c| (9_600..10_400).contains(&c)), "each of 10..=13 a quarter: {counts:?}");

        let bins = vec![(100, 3.0), (200, 0.0), (300, 1.0)];
        let mut histogram = LengthDraws::new(LengthDist::Histogram { bins }, 5);
        let lengths: Vec<u32> = (0..40_000).map(|_| histogram.next_length()).collect();
        let short = lengths.iter().filter(|&&l| l == 100).count();
        assert!(lengths.iter().all(|&l| l == 100 || l == 300), "a bin of weight 0 is never drawn");
        assert!((29_400..30_600).contains(&short), "three quarters are 100: {short}");
        assert_eq!(quantile(&LengthDist::Histogram { bins: vec![(7, 1.0), (9, 0.0)] }, 1.0), 7.0);
    }

    #[test]
    fn a_seed_repeats_the_lengths() {
        let dist = LengthDist::LogNormal { median: 300.0, sigma: 0.8, min: 1, max: 8000 };
        let run = |seed| {
            let mut draws = LengthDraws::new(dist.clone(), seed);
            (0..50).map(|_| draws.next_length()).collect::<Vec<_>>()
        };
        assert_eq!(run(3), run(3));
        assert_ne!(run(3), run(4));
        assert_eq!(LengthDraws::new(LengthDist::fixed(64), 1).next_length(), 64);
    }
}
