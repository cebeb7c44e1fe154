//! The load a capacity search or a sweep varies, which levels it runs (listed, or a search space), and how
//! levels are written.

use crate::model::limits;
use serde::{Deserialize, Serialize};

use crate::model::{spelled, trim_number};

/// Which load a search varies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LoadAxis {
    /// Requests in flight (a closed loop): levels are whole numbers.
    Concurrency,
    /// Requests sent per second (an open loop).
    Rate,
}

spelled!(LoadAxis { Concurrency => "concurrency", Rate => "rate" });

impl LoadAxis {
    /// The level in words: `8 in flight`, `12.5 req/s`.
    pub fn describe(self, level: f64) -> String {
        match self {
            Self::Concurrency => format!("{} in flight", level.round()),
            Self::Rate => format!("{} req/s", trim_number(level)),
        }
    }
}

/// The levels a search may try.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SearchSpace {
    /// Concurrency (whole numbers) or rate.
    pub axis: LoadAxis,
    /// The first level tried; if it fails, nothing passes.
    pub min: f64,
    /// The highest level tried; if it passes, the answer is "at least this".
    pub max: f64,
    /// Rate only: stop when lowest failure / highest pass ≤ 1 + this (e.g. 0.1: within 10 %).
    #[serde(default = "default_resolution")]
    pub resolution: f64,
}

/// A rate search stops within 10 % unless told otherwise.
pub const DEFAULT_RESOLUTION: f64 = 0.1;

fn default_resolution() -> f64 {
    DEFAULT_RESOLUTION
}

impl SearchSpace {
    /// Checks the bounds: positive, min ≤ max, whole numbers for concurrency, a resolution in (0, 1].
    pub fn validate(&self) -> Result<(), LevelsError> {
        if !(self.min.is_finite() && self.max.is_finite() && self.min > 0.0) {
            return Err(LevelsError::NotPositive);
        }
        if self.max < self.min {
            return Err(LevelsError::Reversed { min: self.min, max: self.max });
        }
        if self.axis == LoadAxis::Concurrency && (self.min.fract() != 0.0 || self.max.fract() != 0.0) {
            return Err(LevelsError::FractionalConcurrency);
        }
        if self.axis == LoadAxis::Rate && (self.min < limits::MIN_RATE || self.max > limits::MAX_RATE) {
            return Err(LevelsError::RateOutOfRange);
        }
        if self.axis == LoadAxis::Rate && !(self.resolution > 0.0 && self.resolution <= 1.0) {
            return Err(LevelsError::Resolution);
        }
        Ok(())
    }
}

/// Why a sweep's levels cannot be run, in words for the `levels` field.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LevelsError {
    /// A level at or below zero.
    #[error("the lowest level must be a positive number")]
    NotPositive,
    /// A search whose bounds are the wrong way round.
    #[error("the highest level ({max}) is below the lowest ({min})")]
    Reversed {
        /// The lowest level asked.
        min: f64,
        /// The highest.
        max: f64,
    },
    /// A concurrency that is not a whole number.
    #[error("concurrency levels are whole numbers")]
    FractionalConcurrency,
    /// A rate outside what a run may send.
    #[error("a rate is between {} and {} requests per second", limits::MIN_RATE, limits::MAX_RATE)]
    RateOutOfRange,
    /// A search's rate resolution outside (0, 1].
    #[error("the rate resolution must be above 0 and at most 1 (e.g. 0.1 for 10 %)")]
    Resolution,
    /// Too few or too many automatic rates.
    #[error("ask for 2 to {} rates between the synchronous and the saturated one", MAX_LISTED_LEVELS)]
    AutomaticCount,
    /// Too few or too many repetitions.
    #[error("repeat 2 to {} times", MAX_REPETITIONS)]
    Repetitions,
    /// A pause between repetitions out of range.
    #[error("the pause is 0 to {} seconds", MAX_REPETITION_PAUSE_S)]
    Pause,
    /// No listed level, or too many.
    #[error("list 1 to {} levels", MAX_LISTED_LEVELS)]
    ListedCount,
    /// One level of a list or a repeated run cannot be run.
    #[error("level {level}: {why}")]
    Level {
        /// The level.
        level: f64,
        /// Why.
        why: Box<LevelsError>,
    },
}

/// The most levels a listed sweep runs.
pub const MAX_LISTED_LEVELS: usize = 24;

/// How a sweep picks its levels.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", rename_all_fields = "camelCase", tag = "kind")]
pub enum LevelPlan {
    /// These levels, run lowest first.
    Listed {
        /// Concurrency or rate.
        axis: LoadAxis,
        /// The levels.
        levels: Vec<f64>,
    },
    /// A capacity search.
    Search(SearchSpace),
    /// Open-loop rates found for this endpoint, as GuideLLM does: first the synchronous rate (one request in
    /// flight) and the saturated throughput (the most in flight), then `levels` rates evenly spaced from one to the
    /// other.
    Automatic {
        /// How many rates between the two, both ends included.
        levels: u32,
    },
    /// One level run again and again: a repeated run, whose figures are reported over its repetitions (mean,
    /// t-based interval, run-to-run variation).
    Repeated {
        /// Concurrency or rate.
        axis: LoadAxis,
        /// The level every repetition runs.
        level: f64,
        /// How many times.
        repetitions: u32,
        /// Seconds of rest between one repetition's end and the next one's start.
        #[serde(default)]
        pause_s: f64,
    },
}

/// The most repetitions a repeated run has.
pub const MAX_REPETITIONS: u32 = 20;
/// The longest pause between repetitions, s.
pub const MAX_REPETITION_PAUSE_S: f64 = 3_600.0;

impl LevelPlan {
    /// The load varied.
    pub fn axis(&self) -> LoadAxis {
        match self {
            Self::Listed { axis, .. } => *axis,
            Self::Search(space) => space.axis,
            Self::Automatic { .. } => LoadAxis::Rate,
            Self::Repeated { axis, .. } => *axis,
        }
    }

    /// Checks the levels; a listed plan comes back sorted without repeats.
    pub fn validated(self) -> Result<Self, LevelsError> {
        match self {
            Self::Search(space) => space.validate().map(|()| Self::Search(space)),
            Self::Automatic { levels } => {
                if !(2..=MAX_LISTED_LEVELS as u32).contains(&levels) {
                    return Err(LevelsError::AutomaticCount);
                }
                Ok(self)
            }
            Self::Repeated { axis, level, repetitions, pause_s } => {
                if !(2..=MAX_REPETITIONS).contains(&repetitions) {
                    return Err(LevelsError::Repetitions);
                }
                if !(pause_s.is_finite() && (0.0..=MAX_REPETITION_PAUSE_S).contains(&pause_s)) {
                    return Err(LevelsError::Pause);
                }
                let space = SearchSpace { axis, min: level, max: level, resolution: DEFAULT_RESOLUTION };
                space.validate().map_err(|why| LevelsError::Level { level, why: Box::new(why) })?;
                Ok(self)
            }
            Self::Listed { axis, mut levels } => {
                if levels.is_empty() || levels.len() > MAX_LISTED_LEVELS {
                    return Err(LevelsError::ListedCount);
                }
                for level in &levels {
                    let space = SearchSpace { axis, min: *level, max: *level, resolution: 0.1 };
                    space.validate().map_err(|why| LevelsError::Level { level: *level, why: Box::new(why) })?;
                }
                levels.sort_by(f64::total_cmp);
                levels.dedup();
                Ok(Self::Listed { axis, levels })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_read_as_people_write_them() {
        assert_eq!(LoadAxis::Concurrency.describe(8.0), "8 in flight");
        assert_eq!(LoadAxis::Rate.describe(12.5), "12.5 req/s");
        assert_eq!(trim_number(3.0), "3");
        assert_eq!(trim_number(0.333_333), "0.333");
    }

    #[test]
    fn a_repeated_run_is_checked() {
        let repeated = |level: f64, repetitions: u32, pause_s: f64| {
            LevelPlan::Repeated { axis: LoadAxis::Concurrency, level, repetitions, pause_s }.validated()
        };
        assert!(repeated(4.0, 5, 10.0).is_ok());
        let written = r#"{"kind":"repeated","axis":"rate","level":2.5,"repetitions":3,"pauseS":1.5}"#;
        let read: LevelPlan = serde_json::from_str(written).unwrap();
        assert_eq!(read, LevelPlan::Repeated { axis: LoadAxis::Rate, level: 2.5, repetitions: 3, pause_s: 1.5 });
        assert_eq!(repeated(4.0, 1, 0.0).unwrap_err().to_string(), "repeat 2 to 20 times");
        assert_eq!(repeated(4.0, 21, 0.0).unwrap_err().to_string(), "repeat 2 to 20 times");
        assert_eq!(repeated(4.0, 3, -1.0).unwrap_err().to_string(), "the pause is 0 to 3600 seconds");
        assert_eq!(repeated(4.0, 3, f64::NAN).unwrap_err().to_string(), "the pause is 0 to 3600 seconds");
        assert_eq!(repeated(2.5, 3, 0.0).unwrap_err().to_string(), "level 2.5: concurrency levels are whole numbers");
        assert_eq!(
            repeated(0.0, 3, 0.0).unwrap_err().to_string(),
            "level 0: the lowest level must be a positive number"
        );
    }
}
