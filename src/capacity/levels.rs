//! Which levels a sweep runs: the levels a user listed (lowest first, stopping early once the endpoint is
//! over-saturated), or a capacity search that picks each next level from the verdicts so far.

use serde::{Deserialize, Serialize};

use super::search::{Search, SearchSpace};
use crate::model::LoadAxis;
use crate::report::CapacityLevel;

/// The most levels a listed sweep runs.
pub const MAX_LISTED_LEVELS: usize = 24;

/// How a sweep picks its levels.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "kind")]
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
}

impl LevelPlan {
    /// The load varied.
    pub fn axis(&self) -> LoadAxis {
        match self {
            Self::Listed { axis, .. } => *axis,
            Self::Search(space) => space.axis,
        }
    }

    /// Checks the levels; a listed plan comes back sorted without repeats.
    pub fn validated(self) -> Result<Self, String> {
        match self {
            Self::Search(space) => space.validate().map(|()| Self::Search(space)),
            Self::Listed { axis, mut levels } => {
                if levels.is_empty() || levels.len() > MAX_LISTED_LEVELS {
                    return Err(format!("list 1 to {MAX_LISTED_LEVELS} levels"));
                }
                for level in &levels {
                    let space = SearchSpace { axis, min: *level, max: *level, resolution: 0.1 };
                    space.validate().map_err(|e| format!("level {level}: {e}"))?;
                }
                levels.sort_by(f64::total_cmp);
                levels.dedup();
                Ok(Self::Listed { axis, levels })
            }
        }
    }
}

/// Picks level after level.
#[derive(Debug, Clone)]
pub struct Picker {
    plan: LevelPlan,
    search: Option<Search>,
    next_listed: usize,
    stopped: bool,
}

impl Picker {
    /// A picker over a validated plan.
    pub fn new(plan: LevelPlan) -> Self {
        let search = match &plan {
            LevelPlan::Search(space) => Some(Search::new(*space)),
            LevelPlan::Listed { .. } => None,
        };
        Self { plan, search, next_listed: 0, stopped: false }
    }

    /// The next level; `None` when done.
    pub fn next_level(&self) -> Option<f64> {
        match (&self.plan, &self.search) {
            (_, Some(search)) => search.next_level(),
            (LevelPlan::Listed { levels, .. }, None) if !self.stopped => levels.get(self.next_listed).copied(),
            _ => None,
        }
    }

    /// Records how a level went; a listed sweep stops after an over-saturated level (nothing above it can pass).
    pub fn record(&mut self, level: &CapacityLevel) {
        match &mut self.search {
            Some(search) => search.record(level.level, level.passed),
            None => {
                self.next_listed += 1;
                self.stopped |= level.saturation.is_some();
            }
        }
    }

    /// A listed sweep left levels out because one was over-saturated.
    pub fn stopped_early(&self) -> bool {
        match &self.plan {
            LevelPlan::Listed { levels, .. } => self.stopped && self.next_listed < levels.len(),
            LevelPlan::Search(_) => false,
        }
    }

    /// The highest level that passed with every lower one passing, from the search or the levels run.
    pub fn bounded(&self, levels: &[CapacityLevel]) -> bool {
        match &self.search {
            Some(search) => search.bounded(),
            None => levels.iter().any(|l| !l.passed),
        }
    }
}

/// The highest level that passed with every lower level run passing; `None` when the lowest failed.
pub fn highest_passing(levels: &[CapacityLevel]) -> Option<f64> {
    let mut sorted: Vec<&CapacityLevel> = levels.iter().collect();
    sorted.sort_by(|a, b| a.level.total_cmp(&b.level));
    sorted.iter().take_while(|l| l.passed).last().map(|l| l.level)
}
