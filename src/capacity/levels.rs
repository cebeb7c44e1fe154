//! Which levels a sweep runs: the levels a user listed (lowest first, stopping early once the endpoint is
//! over-saturated), or a capacity search that picks each next level from the verdicts so far.

use super::search::Search;
use crate::model::LevelPlan;
use crate::report::CapacityLevel;

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
