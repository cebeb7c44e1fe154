//! Which levels a sweep runs: the levels a user listed (lowest first, stopping early once the endpoint is
//! over-saturated), a capacity search that picks each next level from the verdicts so far, or automatic rates:
//! two probes (one request in flight, then the most) measure the synchronous rate and the saturated throughput,
//! and rates evenly spaced between them follow, stopping early like a list.

use super::search::Search;
use crate::capacity::model::LevelPlan;
use crate::capacity::report::CapacityLevel;
use crate::model::{LoadMode, RunPlanInput};

/// What to run next.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Step {
    /// A level of the sweep.
    Level(f64),
    /// An automatic sweep's probe: a closed loop with this many in flight, to learn a throughput.
    Probe(u32),
}

/// Picks level after level.
#[derive(Debug, Clone)]
pub struct Picker {
    plan: LevelPlan,
    search: Option<Search>,
    /// Listed levels, or an automatic sweep's rates once its probes are done.
    listed: Vec<f64>,
    next_listed: usize,
    stopped: bool,
    /// An automatic sweep: the probes' concurrencies, and the throughputs they measured so far.
    probes: Vec<u32>,
    probed: Vec<Option<f64>>,
}

/// Rates evenly spaced from `low` to `high`, both included, `count` of them (fewer when they coincide).
pub fn spaced_rates(low: f64, high: f64, count: u32) -> Vec<f64> {
    let high = high.max(low);
    let step = (high - low) / f64::from(count.max(2) - 1);
    let mut rates: Vec<f64> =
        (0..count).map(|i| low + step * f64::from(i)).map(|r| (r * 1000.0).round() / 1000.0).collect();
    rates.dedup();
    rates
}

impl Picker {
    /// A picker over a validated plan; an automatic sweep's second probe runs `most_in_flight` at once.
    pub fn new(plan: LevelPlan, most_in_flight: u32) -> Self {
        let (search, listed, probes) = match &plan {
            LevelPlan::Search(space) => (Some(Search::new(*space)), vec![], vec![]),
            LevelPlan::Listed { levels, .. } => (None, levels.clone(), vec![]),
            LevelPlan::Automatic { .. } => (None, vec![], vec![1, most_in_flight.max(1)]),
            LevelPlan::Repeated { level, repetitions, .. } => (None, vec![*level; *repetitions as usize], vec![]),
        };
        Self { plan, search, listed, next_listed: 0, stopped: false, probes, probed: vec![] }
    }

    /// What to run next; `None` when done.
    pub fn next_step(&self) -> Option<Step> {
        if let Some(search) = &self.search {
            return search.next_level().map(Step::Level);
        }
        if let Some(probe) = self.probes.get(self.probed.len()) {
            return Some(Step::Probe(*probe));
        }
        if self.stopped {
            return None;
        }
        self.listed.get(self.next_listed).copied().map(Step::Level)
    }

    /// Records what a probe measured; once both are in, an automatic sweep's rates are known (none when either
    /// probe measured no throughput).
    pub fn record_probe(&mut self, throughput_rps: Option<f64>) {
        self.probed.push(throughput_rps.filter(|t| *t > 0.0));
        if let (LevelPlan::Automatic { levels }, [Some(low), Some(high)]) = (&self.plan, self.probed.as_slice()) {
            self.listed = spaced_rates(*low, *high, *levels);
        }
    }

    /// Records how a level went; a listed (or automatic) sweep stops after an over-saturated level.
    pub fn record(&mut self, level: &CapacityLevel) {
        match &mut self.search {
            Some(search) => search.record(level.level, level.passed),
            None => {
                self.next_listed += 1;
                self.stopped |= level.saturation.is_some();
            }
        }
    }

    /// A listed or automatic sweep left levels out because one was over-saturated.
    pub fn stopped_early(&self) -> bool {
        self.search.is_none() && self.stopped && self.next_listed < self.listed.len()
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

/// The run of one level, the `level`-th run of a sweep or search (from 0): the template at load `mode` with
/// `requests` measured requests (its prompts in turn, or that many of its workload's, with a seed of the level's
/// own) after `warmup` warm-ups.
pub fn level_input(template: &RunPlanInput, mode: LoadMode, requests: u32, warmup: u32, level: u32) -> RunPlanInput {
    match &template.workload {
        Some(workload) => RunPlanInput {
            mode,
            iterations: 1,
            warmup,
            workload: Some(workload.at_level(requests, level)),
            ..template.clone()
        },
        None => {
            let prompts = template.prompts.len().max(1) as u32;
            RunPlanInput { mode, iterations: requests.div_ceil(prompts), warmup, ..template.clone() }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_automatic_sweep_probes_twice_then_spaces_rates_between_what_the_probes_measured() {
        let mut picker = Picker::new(LevelPlan::Automatic { levels: 4 }, 64);
        assert_eq!(picker.next_step(), Some(Step::Probe(1)));
        picker.record_probe(Some(30.0));
        assert_eq!(picker.next_step(), Some(Step::Probe(64)));
        picker.record_probe(Some(120.0));
        let mut rates = Vec::new();
        while let Some(Step::Level(rate)) = picker.next_step() {
            rates.push(rate);
            picker.record(&CapacityLevel::at(rate));
        }
        assert_eq!(rates, [30.0, 60.0, 90.0, 120.0]);
        assert!(!picker.stopped_early());

        let mut failed = Picker::new(LevelPlan::Automatic { levels: 4 }, 64);
        failed.record_probe(Some(30.0));
        failed.record_probe(None);
        assert_eq!(failed.next_step(), None, "no saturated throughput, no rates");
        assert_eq!(spaced_rates(5.0, 5.0, 3), [5.0], "a flat endpoint gives one rate");
    }
}
