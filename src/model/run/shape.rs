//! How a run's load changes while it goes: a ramp up to the mode's load (an open loop's rate or a closed loop's
//! requests in flight), linear or exponential, whose requests are warm-ups unless counted; or an open loop's rate
//! following a list of steps. Pure: the load at an instant of the run, which the driver follows.

use serde::{Deserialize, Serialize};

use crate::model::{limits, LoadMode, ValidationError};

/// Steps of a stepped rate at most.
pub const MAX_STEPS: usize = 100;
/// The longest ramp, and the longest step, seconds.
pub const MAX_SHAPE_SECONDS: f64 = 86_400.0;

/// How a ramp climbs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum RampCurve {
    /// By the same amount each second.
    Linear,
    /// By the same factor each second (a rate doubling every few seconds).
    Exponential,
}

/// One step of a stepped rate.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RateStep {
    /// Requests per second during the step.
    pub rate: f64,
    /// How long the step lasts, seconds.
    pub seconds: f64,
}

/// How the load changes over a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase", deny_unknown_fields)]
pub enum LoadShape {
    /// From `from` (requests per second in an open loop, requests in flight in a closed one) up to the mode's own
    /// load over `seconds`. What is sent during the ramp is a warm-up (not in the statistics) unless `counted`.
    #[serde(rename_all = "camelCase")]
    Ramp {
        /// Linear or exponential.
        curve: RampCurve,
        /// Where the ramp starts.
        from: f64,
        /// How long it lasts, seconds.
        seconds: f64,
        /// Count what is sent during the ramp in the statistics.
        #[serde(default)]
        counted: bool,
    },
    /// An open loop's rate, step by step: each step's rate for its seconds; nothing is sent after the last.
    #[serde(rename_all = "camelCase")]
    Steps {
        /// The steps, in order.
        steps: Vec<RateStep>,
    },
}

impl LoadShape {
    /// Refuses a shape `mode` cannot follow, naming the field under `shape.`.
    pub fn validate(&self, mode: &LoadMode) -> Result<(), ValidationError> {
        let fail = |field: &str, reason: String| Err(ValidationError::new(format!("shape.{field}"), reason));
        let seconds_ok = |s: f64| s.is_finite() && s > 0.0 && s <= MAX_SHAPE_SECONDS;
        match self {
            Self::Ramp { from, seconds, .. } => {
                if !seconds_ok(*seconds) {
                    return fail("seconds", format!("{seconds} is outside (0, {MAX_SHAPE_SECONDS}]"));
                }
                let target = target(mode);
                if !(from.is_finite() && *from > 0.0 && *from <= target) {
                    let unit = if matches!(mode, LoadMode::Closed { .. }) { "in flight" } else { "req/s" };
                    return fail("from", format!("{from} must be above 0 and at most the target's {target} {unit}"));
                }
                if matches!(mode, LoadMode::Closed { .. }) && from.fract() != 0.0 {
                    return fail("from", format!("{from}: requests in flight are whole"));
                }
            }
            Self::Steps { steps } => {
                let LoadMode::Open { .. } = mode else {
                    return fail("steps", "a stepped rate is an open loop's: set mode.kind to open".into());
                };
                if steps.is_empty() || steps.len() > MAX_STEPS {
                    return fail("steps", format!("{} steps: give 1 to {MAX_STEPS}", steps.len()));
                }
                let (low, high) = (limits::MIN_RATE, limits::MAX_RATE);
                for (i, step) in steps.iter().enumerate() {
                    if !(step.rate.is_finite() && (low..=high).contains(&step.rate)) {
                        return fail(&format!("steps[{i}].rate"), format!("{} is outside {low}..={high}", step.rate));
                    }
                    if !seconds_ok(step.seconds) {
                        return fail(
                            &format!("steps[{i}].seconds"),
                            format!("{} is outside (0, {MAX_SHAPE_SECONDS}]", step.seconds),
                        );
                    }
                }
            }
        }
        Ok(())
    }

    /// The load at `t` seconds into the run, for a mode whose own load is `target`: requests per second in an
    /// open loop, requests in flight in a closed one; `None` once a stepped rate's last step is over.
    pub fn load_at(&self, target: f64, t: f64) -> Option<f64> {
        match self {
            Self::Ramp { curve, from, seconds, .. } => {
                let done = (t / seconds).clamp(0.0, 1.0);
                Some(match curve {
                    RampCurve::Linear => from + (target - from) * done,
                    RampCurve::Exponential => from * (target / from).powf(done),
                })
            }
            Self::Steps { steps } => {
                let mut ends = 0.0;
                steps.iter().find_map(|step| {
                    ends += step.seconds;
                    (t < ends).then_some(step.rate)
                })
            }
        }
    }

    /// Seconds from the run's start during which what is sent is a warm-up: a ramp's, unless counted.
    pub fn warm_up_seconds(&self) -> Option<f64> {
        match self {
            Self::Ramp { seconds, counted: false, .. } => Some(*seconds),
            _ => None,
        }
    }

    /// The shape in a few words: `linear ramp from 1 over 30 s (warm-up)`, `3 rate steps over 90 s`.
    pub fn describe(&self) -> String {
        let n = crate::model::trim_number;
        match self {
            Self::Ramp { curve, from, seconds, counted } => format!(
                "{} ramp from {} over {} s{}",
                match curve {
                    RampCurve::Linear => "linear",
                    RampCurve::Exponential => "exponential",
                },
                n(*from),
                n(*seconds),
                if *counted { ", counted" } else { ", a warm-up" }
            ),
            Self::Steps { steps } => {
                let rates: Vec<String> =
                    steps.iter().map(|s| format!("{}/s for {} s", n(s.rate), n(s.seconds))).collect();
                format!("rate steps: {}", rates.join(", "))
            }
        }
    }
}

/// The mode's own load: its rate, or its requests in flight.
pub fn target(mode: &LoadMode) -> f64 {
    match *mode {
        LoadMode::Closed { concurrency } => f64::from(concurrency),
        LoadMode::Open { rate_per_second, .. } => rate_per_second,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn open(rate: f64) -> LoadMode {
        LoadMode::Open { rate_per_second: rate, poisson: false, max_concurrency: 64, burstiness: None }
    }

    #[test]
    fn a_ramp_climbs_to_the_mode_s_load_and_stays() {
        let linear = LoadShape::Ramp { curve: RampCurve::Linear, from: 2.0, seconds: 10.0, counted: false };
        assert_eq!(linear.load_at(12.0, 0.0), Some(2.0));
        assert_eq!(linear.load_at(12.0, 5.0), Some(7.0));
        assert_eq!(linear.load_at(12.0, 60.0), Some(12.0));
        let exponential = LoadShape::Ramp { curve: RampCurve::Exponential, from: 1.0, seconds: 10.0, counted: true };
        // 1 · 16^(5/10) = 4
        assert_eq!(exponential.load_at(16.0, 5.0), Some(4.0));
        assert_eq!((linear.warm_up_seconds(), exponential.warm_up_seconds()), (Some(10.0), None));
        assert_eq!(linear.describe(), "linear ramp from 2 over 10 s, a warm-up");
    }

    #[test]
    fn steps_follow_each_other_and_end() {
        let steps = LoadShape::Steps {
            steps: vec![RateStep { rate: 5.0, seconds: 10.0 }, RateStep { rate: 20.0, seconds: 5.0 }],
        };
        assert_eq!(steps.load_at(99.0, 0.0), Some(5.0));
        assert_eq!(steps.load_at(99.0, 10.0), Some(20.0));
        assert_eq!(steps.load_at(99.0, 15.0), None, "over after the last step");
        assert!(steps.validate(&open(1.0)).is_ok());
        assert_eq!(steps.describe(), "rate steps: 5/s for 10 s, 20/s for 5 s");
    }

    #[test]
    fn refuses_what_a_mode_cannot_follow() {
        let field = |shape: LoadShape, mode: LoadMode| shape.validate(&mode).unwrap_err().field;
        let ramp = |from, seconds| LoadShape::Ramp { curve: RampCurve::Linear, from, seconds, counted: false };
        assert_eq!(field(ramp(20.0, 10.0), open(10.0)), "shape.from");
        assert_eq!(field(ramp(0.0, 10.0), open(10.0)), "shape.from");
        assert_eq!(field(ramp(1.5, 10.0), LoadMode::Closed { concurrency: 8 }), "shape.from");
        assert_eq!(field(ramp(1.0, 0.0), open(10.0)), "shape.seconds");
        assert!(ramp(1.0, 30.0).validate(&LoadMode::Closed { concurrency: 8 }).is_ok());
        let steps = |steps| LoadShape::Steps { steps };
        assert_eq!(field(steps(vec![]), open(1.0)), "shape.steps");
        assert_eq!(
            field(steps(vec![RateStep { rate: 5.0, seconds: 1.0 }]), LoadMode::Closed { concurrency: 2 }),
            "shape.steps"
        );
        assert_eq!(field(steps(vec![RateStep { rate: 0.0, seconds: 1.0 }]), open(1.0)), "shape.steps[0].rate");
        assert_eq!(field(steps(vec![RateStep { rate: 1.0, seconds: f64::NAN }]), open(1.0)), "shape.steps[0].seconds");
    }
}
