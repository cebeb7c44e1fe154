//! When an open loop's sends are due: the gaps between them drawn from a seeded generator, so a run's arrival
//! pattern can be reproduced. Constant gaps of 1/rate; exponential ones (Poisson arrivals); or gamma-distributed
//! ones of shape `burstiness` and mean 1/rate (vLLM's burstiness factor: 1 is Poisson, below 1 burstier, the gaps'
//! coefficient of variation being 1/√burstiness). A trace's replay sends at the instants it recorded instead.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::sync::Arc;
use std::time::Duration;

use crate::model::LoadMode;

/// The longest gap between two sends of a schedule.
const MAX_GAP: Duration = Duration::from_secs(86_400);

/// How the gap before each send is drawn.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Gap {
    Constant { rate: f64 },
    Exponential { rate: f64 },
    Gamma { rate: f64, shape: f64 },
}

/// When job `k` should be sent, as an offset from the run's start; `None` means "as soon as a slot is free".
pub(super) struct Schedule {
    gap: Option<Gap>,
    next: Duration,
    rng: StdRng,
    /// A trace's instants, which replace the mode's gaps, and how many were taken.
    replay: Option<(Arc<[Duration]>, usize)>,
}

impl Schedule {
    /// The instants of a trace, in order: job `k` is due at `instants[k]`.
    pub(super) fn replay(instants: Arc<[Duration]>) -> Self {
        Self { gap: None, next: Duration::ZERO, rng: StdRng::seed_from_u64(0), replay: Some((instants, 0)) }
    }

    pub(super) fn new(mode: LoadMode, seed: u64) -> Self {
        let gap = match mode {
            LoadMode::Closed { .. } => None,
            LoadMode::Open { rate_per_second: rate, burstiness: Some(shape), .. } => Some(Gap::Gamma { rate, shape }),
            LoadMode::Open { rate_per_second: rate, poisson: true, .. } => Some(Gap::Exponential { rate }),
            LoadMode::Open { rate_per_second: rate, .. } => Some(Gap::Constant { rate }),
        };
        Self { gap, next: Duration::ZERO, rng: StdRng::seed_from_u64(seed), replay: None }
    }

    pub(super) fn next_offset(&mut self) -> Option<Duration> {
        if let Some((instants, taken)) = &mut self.replay {
            // Past the trace's end (no job should ask), the last instant: never earlier than a job before.
            let at = instants.get(*taken).or(instants.last()).copied();
            *taken += 1;
            return Some(at.unwrap_or_default());
        }
        let at = self.next;
        let seconds = match self.gap? {
            Gap::Constant { rate } => 1.0 / rate,
            // -ln(U)/rate with U in (0, 1].
            Gap::Exponential { rate } => -(1.0 - self.rng.gen::<f64>()).ln() / rate,
            Gap::Gamma { rate, shape } => standard_gamma(&mut self.rng, shape) / (rate * shape),
        };
        // Total for any rate: validation keeps rates at 0.01/s or more, but a gap never panics or overflows.
        self.next = self.next.saturating_add(Duration::try_from_secs_f64(seconds).unwrap_or(MAX_GAP).min(MAX_GAP));
        Some(at)
    }
}

/// A standard normal draw (Box–Muller).
fn standard_normal(rng: &mut impl Rng) -> f64 {
    let u1: f64 = 1.0 - rng.gen::<f64>();
    let u2: f64 = rng.gen::<f64>();
    (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}

/// A gamma draw of `shape` and scale 1: Marsaglia and Tsang's method (2000) for a shape of 1 or more, and for a
/// smaller one a draw of shape + 1 times U^(1/shape).
fn standard_gamma(rng: &mut impl Rng, shape: f64) -> f64 {
    if shape < 1.0 {
        let u: f64 = 1.0 - rng.gen::<f64>();
        return standard_gamma(rng, shape + 1.0) * u.powf(1.0 / shape);
    }
    let d = shape - 1.0 / 3.0;
    let c = 1.0 / (9.0 * d).sqrt();
    loop {
        let x = standard_normal(rng);
        let v = (1.0 + c * x).powi(3);
        if v <= 0.0 {
            continue;
        }
        let u: f64 = 1.0 - rng.gen::<f64>();
        if u.ln() < 0.5 * x * x + d - d * v + d * v.ln() {
            return d * v;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gaps(mode: LoadMode, seed: u64, n: usize) -> Vec<f64> {
        let mut schedule = Schedule::new(mode, seed);
        let offsets: Vec<f64> = (0..=n).map(|_| schedule.next_offset().unwrap().as_secs_f64()).collect();
        offsets.windows(2).map(|w| w[1] - w[0]).collect()
    }

    fn open(poisson: bool, burstiness: Option<f64>) -> LoadMode {
        LoadMode::Open { rate_per_second: 10.0, poisson, max_concurrency: 1, burstiness }
    }

    #[test]
    fn poisson_gaps_average_the_rate_and_repeat_for_a_seed() {
        let all = gaps(open(true, None), 7, 20_000);
        assert_eq!(all[..10], gaps(open(true, None), 7, 10)[..]);
        let mean = all.iter().sum::<f64>() / all.len() as f64;
        assert!((mean - 0.1).abs() < 0.003, "mean gap {mean} s for 10/s");
        assert!(gaps(open(false, None), 1, 3).iter().all(|g| (g - 0.1).abs() < 1e-9), "constant spacing");
    }

    /// The gaps' quantiles against `scipy.stats.gamma(a=b, scale=1/(10·b)).ppf(p)` at p = 0.1, 0.5, 0.9, 0.99
    /// (scipy 1.16): 200,000 draws land within 3 % of each (and of the mean gap, 1/rate), and the coefficient of
    /// variation is 1/√b.
    #[test]
    fn gamma_gaps_follow_scipys_distribution_for_bursty_and_even_loads() {
        let cases = [
            (0.5, [0.0015790774093431222, 0.045493642311957204, 0.27055434540954043, 0.6634896601021215]),
            (4.0, [0.04361923907062279, 0.09180151872127243, 0.16701957670639664, 0.2511279378707904]),
        ];
        for (burstiness, scipy) in cases {
            let mut drawn = gaps(open(false, Some(burstiness)), 3, 200_000);
            let mean = drawn.iter().sum::<f64>() / drawn.len() as f64;
            let sd = (drawn.iter().map(|g| (g - mean).powi(2)).sum::<f64>() / drawn.len() as f64).sqrt();
            assert!((mean / 0.1 - 1.0).abs() < 0.03, "burstiness {burstiness}: mean gap {mean}");
            assert!((sd / mean * burstiness.sqrt() - 1.0).abs() < 0.03, "burstiness {burstiness}: CV {}", sd / mean);
            drawn.sort_by(f64::total_cmp);
            for (p, expected) in [0.1, 0.5, 0.9, 0.99].into_iter().zip(scipy) {
                let ours = crate::stats::percentile(&drawn, p * 100.0).unwrap();
                assert!((ours / expected - 1.0).abs() < 0.03, "burstiness {burstiness}, p {p}: {ours} vs {expected}");
            }
        }
    }
}
