//! When an open loop's sends are due: the gaps between them drawn from a seeded generator, so a run's arrival
//! pattern can be reproduced. Constant gaps of 1/rate; exponential ones (Poisson arrivals); or gamma-distributed
//! ones of shape `burstiness` and mean 1/rate (vLLM's burstiness factor: 1 is Poisson, below 1 burstier, the gaps'
//! coefficient of variation being 1/√burstiness). A trace's replay sends at the instants it recorded instead.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::sync::Arc;
use std::time::Duration;

use crate::model::{LoadMode, LoadShape};

/// The longest gap between two sends of a schedule.
const MAX_GAP: Duration = Duration::from_secs(86_400);

/// How the gap before each send is drawn, at the rate of the moment.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Gap {
    Constant,
    Exponential,
    Gamma { shape: f64 },
}

/// When a session is due.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Due {
    /// As soon as a slot is free (a closed loop).
    Now,
    /// At this offset from the run's start.
    At(Duration),
    /// Never: the schedule is over (a stepped rate's last step ended).
    Over,
}

/// When session `k` should be sent, as an offset from the run's start.
pub(super) struct Schedule {
    /// An open loop's gaps and its rate (none for a closed loop).
    gap: Option<(Gap, f64)>,
    /// How the rate changes over the run.
    shape: Option<LoadShape>,
    next: Duration,
    rng: StdRng,
    /// A trace's instants, which replace the mode's gaps, and how many were taken.
    replay: Option<(Arc<[Duration]>, usize)>,
}

impl Schedule {
    /// The instants of a trace, in order: session `k` is due at `instants[k]`.
    pub(super) fn replay(instants: Arc<[Duration]>) -> Self {
        Self {
            gap: None,
            shape: None,
            next: Duration::ZERO,
            rng: StdRng::seed_from_u64(0),
            replay: Some((instants, 0)),
        }
    }

    /// The schedule of `mode`, its rate following `shape`; `seed` fixes random gaps.
    pub(super) fn new(mode: LoadMode, seed: u64, shape: Option<LoadShape>) -> Self {
        let gap = match mode {
            LoadMode::Closed { .. } => None,
            LoadMode::Open { rate_per_second: rate, burstiness: Some(shape), .. } => Some((Gap::Gamma { shape }, rate)),
            LoadMode::Open { rate_per_second: rate, poisson: true, .. } => Some((Gap::Exponential, rate)),
            LoadMode::Open { rate_per_second: rate, .. } => Some((Gap::Constant, rate)),
        };
        Self { gap, shape, next: Duration::ZERO, rng: StdRng::seed_from_u64(seed), replay: None }
    }

    pub(super) fn next_offset(&mut self) -> Due {
        if let Some((instants, taken)) = &mut self.replay {
            // Past the trace's end (no session should ask), the last instant: never earlier than one before.
            let at = instants.get(*taken).or(instants.last()).copied();
            *taken += 1;
            return Due::At(at.unwrap_or_default());
        }
        let Some((gap, target)) = self.gap else { return Due::Now };
        let at = self.next;
        // The rate of the moment the send is due: a ramp's or a step's, else the mode's.
        let rate = match &self.shape {
            None => target,
            Some(shape) => match shape.load_at(target, at.as_secs_f64()) {
                Some(rate) => rate,
                None => return Due::Over,
            },
        };
        let seconds = match gap {
            Gap::Constant => 1.0 / rate,
            // -ln(U)/rate with U in (0, 1].
            Gap::Exponential => -(1.0 - self.rng.gen::<f64>()).ln() / rate,
            Gap::Gamma { shape } => standard_gamma(&mut self.rng, shape) / (rate * shape),
        };
        // Total for any rate: validation keeps rates at 0.01/s or more, but a gap never panics or overflows.
        self.next = self.next.saturating_add(Duration::try_from_secs_f64(seconds).unwrap_or(MAX_GAP).min(MAX_GAP));
        Due::At(at)
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
        let mut schedule = Schedule::new(mode, seed, None);
        let offsets: Vec<f64> = (0..=n).map(|_| at(schedule.next_offset())).collect();
        offsets.windows(2).map(|w| w[1] - w[0]).collect()
    }

    fn at(due: Due) -> f64 {
        match due {
            Due::At(offset) => offset.as_secs_f64(),
            other => panic!("{other:?}"),
        }
    }

    /// A linear ramp from 1/s to 10/s over 10 s, then 10/s: each constant gap is 1/rate at its send (1 s, then
    /// 1/1.9 s, …), and 10 sends a second after the ramp. A stepped rate's sends follow each step, then stop.
    #[test]
    fn a_ramp_spaces_sends_at_the_rate_of_the_moment_and_steps_end_the_schedule() {
        use crate::model::{RampCurve, RateStep};
        let ramp = LoadShape::Ramp { curve: RampCurve::Linear, from: 1.0, seconds: 10.0, counted: false };
        let mut schedule = Schedule::new(
            LoadMode::Open { rate_per_second: 10.0, poisson: false, max_concurrency: 8, burstiness: None },
            1,
            Some(ramp),
        );
        let offsets: Vec<f64> = (0..200).map(|_| at(schedule.next_offset())).collect();
        let close = |a: f64, b: f64| (a - b).abs() < 1e-6;
        assert!(close(offsets[1], 1.0) && close(offsets[2], 1.0 + 1.0 / 1.9), "{:?}", &offsets[..3]);
        let in_ramp = offsets.iter().filter(|&&t| t < 10.0).count();
        let mut expected = (0usize, 0.0f64);
        while expected.1 < 10.0 {
            expected = (expected.0 + 1, expected.1 + 1.0 / (1.0 + 0.9 * expected.1));
        }
        assert_eq!(in_ramp, expected.0);
        let after = offsets.iter().filter(|&&t| (20.0..21.0).contains(&t)).count();
        assert_eq!(after, 10, "the target rate after the ramp");
        let steps = LoadShape::Steps {
            steps: vec![RateStep { rate: 2.0, seconds: 1.0 }, RateStep { rate: 4.0, seconds: 1.0 }],
        };
        let mut schedule = Schedule::new(
            LoadMode::Open { rate_per_second: 1.0, poisson: false, max_concurrency: 8, burstiness: None },
            1,
            Some(steps),
        );
        let mut sent = Vec::new();
        while let Due::At(offset) = schedule.next_offset() {
            sent.push(offset.as_secs_f64());
        }
        assert_eq!(sent, [0.0, 0.5, 1.0, 1.25, 1.5, 1.75], "2/s for a second, 4/s for one more, then over");
        assert_eq!(Schedule::new(LoadMode::Closed { concurrency: 2 }, 1, None).next_offset(), Due::Now);
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
