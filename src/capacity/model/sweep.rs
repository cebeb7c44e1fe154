//! A sweep as users ask for one (from the browser or the API): a connector, its prompts, the levels (listed, or a
//! capacity search) and the objectives each level is judged against; validated into a [`SweepPlan`].

use serde::{Deserialize, Serialize};

use crate::capacity::model::{LevelPlan, LoadAxis};
use crate::model::{
    limits, parse_slos, Agent, ConnectorId, LoadMode, RunPlanInput, RunStatus, Slo, SweepId, ValidationError,
};

/// The most measured requests one level of a sweep sends.
pub const MAX_SWEEP_REQUESTS_PER_LEVEL: u32 = 100_000;

/// A sweep as asked for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SweepInput {
    /// The connector measured at every level.
    pub connector_id: ConnectorId,
    /// Title; defaults to the levels and the connector's model.
    #[serde(default)]
    pub title: Option<String>,
    /// Listed levels, or a capacity search.
    pub levels: LevelPlan,
    /// User prompts, sent in turn (none with a workload).
    #[serde(default)]
    pub prompts: Vec<String>,
    /// Sent as the `system` message when set.
    #[serde(default)]
    pub system_prompt: Option<String>,
    /// `max_tokens` of every request (default 512).
    #[serde(default = "default_max_tokens")]
    pub max_tokens: u32,
    /// Objectives every level is judged against (`ttft_p95_ms<=500`, …); a search needs one at least.
    #[serde(default)]
    pub slos: Vec<String>,
    /// A level whose share of failed requests is above this fails (default 0.01).
    #[serde(default = "default_max_error_rate")]
    pub max_error_rate: f64,
    /// Measured requests per level; `None`: enough for the percentiles judged.
    #[serde(default)]
    pub requests_per_level: Option<u32>,
    /// Rate levels: Poisson arrivals instead of evenly spaced ones.
    #[serde(default)]
    pub poisson: bool,
    /// Rate levels: requests in flight at most (default 256).
    #[serde(default = "default_max_in_flight")]
    pub max_in_flight: u32,
    /// What every level sends instead of prompts: each level sends its number of the workload's requests, with a
    /// seed of its own, so that no level finds the one before it in a prefix cache. Not written by the browser,
    /// whose sweep form names a saved workload by `workloadId` (the workload's writer stays out of the WASM).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(all(feature = "hydrate", not(feature = "ssr")), serde(skip_serializing))]
    pub workload: Option<crate::model::Workload>,
    /// A workload saved in the workspace, sent instead of `workload` (the server copies it into the plan, so the
    /// sweep keeps what was sent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workload_id: Option<crate::model::WorkloadId>,
}

crate::model::asks_for_workload!(SweepInput);

fn default_max_tokens() -> u32 {
    512
}

fn default_max_error_rate() -> f64 {
    0.01
}

fn default_max_in_flight() -> u32 {
    256
}

/// A validated sweep.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SweepPlan {
    /// Title.
    pub title: String,
    /// The levels (a listed plan sorted, without repeats).
    pub levels: LevelPlan,
    /// The plan every level's run shares; each level sets its load, iterations and warm-up.
    pub template: RunPlanInput,
    /// The objectives.
    pub slos: Vec<Slo>,
    /// The error-rate limit of a level.
    pub max_error_rate: f64,
    /// Measured requests per level, when fixed.
    pub requests_per_level: Option<u32>,
    /// Rate levels: Poisson arrivals.
    pub poisson: bool,
    /// Rate levels: requests in flight at most.
    pub max_in_flight: u32,
}

impl SweepInput {
    /// Validates every field, naming the first bad one; `model` names the default title.
    pub fn validate(&self, model: &str) -> Result<SweepPlan, ValidationError> {
        let levels = self.levels.clone().validated().map_err(|why| ValidationError::new("levels", why.to_string()))?;
        let slos = parse_slos(&self.slos)?;
        if matches!(levels, LevelPlan::Search(_)) && slos.is_empty() {
            return Err(ValidationError::new(
                "slos",
                "a capacity search needs at least one objective (e.g. ttft_p95_ms<=500)",
            ));
        }
        if !(0.0..=1.0).contains(&self.max_error_rate) {
            return Err(ValidationError::new("maxErrorRate", "must be between 0 and 1"));
        }
        if self.requests_per_level.is_some_and(|n| !(1..=MAX_SWEEP_REQUESTS_PER_LEVEL).contains(&n)) {
            return Err(ValidationError::new(
                "requestsPerLevel",
                format!("must be between 1 and {MAX_SWEEP_REQUESTS_PER_LEVEL}"),
            ));
        }
        if !(1..=limits::MAX_CONCURRENCY).contains(&self.max_in_flight) {
            return Err(ValidationError::new(
                "maxInFlight",
                format!("must be between 1 and {}", limits::MAX_CONCURRENCY),
            ));
        }
        let highest = match &levels {
            LevelPlan::Listed { levels, .. } => levels.last().copied().unwrap_or(1.0),
            LevelPlan::Search(space) => space.max,
            LevelPlan::Automatic { .. } => f64::from(self.max_in_flight),
            LevelPlan::Repeated { level, .. } => *level,
        };
        if levels.axis() == LoadAxis::Concurrency && highest > f64::from(limits::MAX_CONCURRENCY) {
            return Err(ValidationError::new("levels", format!("concurrency is at most {}", limits::MAX_CONCURRENCY)));
        }
        let agent = Agent {
            name: "sweep".into(),
            system_prompt: self.system_prompt.clone(),
            tools: vec![],
            token_budget: self.max_tokens,
        };
        // Each level sets its own load and number of requests.
        let one = LoadMode::Closed { concurrency: 1 };
        if self.workload_id.is_some() {
            // The server puts the saved workload in `workload` before validating; here it was not looked up.
            let reason = "a saved workload is looked up by the server that runs the sweep";
            return Err(ValidationError::new("workloadId", reason));
        }
        if self.workload.as_ref().is_some_and(|w| matches!(w, crate::model::Workload::Trace { .. })) {
            let reason = "a trace sends at its recorded instants: it has no load to sweep; replay it with bench";
            return Err(ValidationError::new("workload.kind", reason));
        }
        let template = RunPlanInput {
            slos: self.slos.clone(),
            workload: self.workload.clone(),
            ..RunPlanInput::new(self.connector_id, agent, self.prompts.clone(), 1, one)
        };
        // The prompts, the token budget and the objectives are checked as a run would check them.
        template.validate(model)?;
        let title = match self.title.as_deref().map(str::trim).filter(|t| !t.is_empty()) {
            Some(title) => crate::model::display_name(title, "title", limits::MAX_TITLE_CHARS)?,
            None => format!(
                "{} on {model}",
                match &levels {
                    LevelPlan::Listed { axis, .. } => format!("{} sweep", axis.as_str()),
                    LevelPlan::Search(space) => format!("{} capacity search", space.axis.as_str()),
                    LevelPlan::Automatic { .. } => "automatic rate sweep".to_string(),
                    LevelPlan::Repeated { axis, level, repetitions, .. } =>
                        format!("{} repeated {repetitions}×", axis.describe(*level)),
                }
            ),
        };
        Ok(SweepPlan {
            title,
            levels,
            template,
            slos,
            max_error_rate: self.max_error_rate,
            requests_per_level: self.requests_per_level,
            poisson: self.poisson,
            max_in_flight: self.max_in_flight,
        })
    }
}

/// A sweep as lists show it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SweepSummary {
    /// Its id.
    pub id: SweepId,
    /// Title.
    pub title: String,
    /// The connector's name when it started.
    pub connector_name: String,
    /// The load varied.
    pub axis: LoadAxis,
    /// Life-cycle state (the same states as a run's).
    pub status: RunStatus,
    /// Levels finished.
    pub done_levels: u32,
    /// The highest level that passed so far.
    pub answer: Option<f64>,
    /// A repeated run with a repetition done: its figures are reported over the repetitions.
    #[serde(default)]
    pub repeated: bool,
    /// Why it failed, if it did.
    pub failure: Option<String>,
    /// Start, unix ms.
    pub created_at_ms: i64,
    /// End, unix ms.
    pub finished_at_ms: Option<i64>,
    /// While it runs: the run of the level being measured now (its page shows live progress).
    #[serde(default)]
    pub current_run_id: Option<crate::model::RunId>,
    /// While it runs: that level, in words (`8 in flight`, `probe: 1 in flight`).
    #[serde(default)]
    pub current_level: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capacity::model::SearchSpace;

    fn input(levels: LevelPlan, slos: &[&str]) -> SweepInput {
        SweepInput {
            connector_id: ConnectorId(uuid::Uuid::nil()),
            title: None,
            levels,
            prompts: vec!["hi".into()],
            system_prompt: None,
            max_tokens: 64,
            slos: slos.iter().map(|s| (*s).to_string()).collect(),
            max_error_rate: 0.01,
            requests_per_level: Some(20),
            poisson: false,
            max_in_flight: 256,
            workload: None,
            workload_id: None,
        }
    }

    #[test]
    fn a_sweep_is_checked_field_by_field() {
        let listed = LevelPlan::Listed { axis: LoadAxis::Concurrency, levels: vec![4.0, 1.0, 2.0, 2.0] };
        let plan = input(listed, &[]).validate("sim").unwrap();
        assert_eq!(plan.levels, LevelPlan::Listed { axis: LoadAxis::Concurrency, levels: vec![1.0, 2.0, 4.0] });
        assert_eq!(plan.title, "concurrency sweep on sim");
        let search = LevelPlan::Search(SearchSpace { axis: LoadAxis::Rate, min: 1.0, max: 50.0, resolution: 0.1 });
        assert_eq!(input(search.clone(), &[]).validate("m").unwrap_err().field, "slos");
        assert_eq!(input(search, &["ttft_p95_ms<=500"]).validate("m").unwrap().title, "rate capacity search on m");
        let bad = [
            (LevelPlan::Listed { axis: LoadAxis::Concurrency, levels: vec![] }, "levels"),
            (LevelPlan::Listed { axis: LoadAxis::Concurrency, levels: vec![1.5] }, "levels"),
            (LevelPlan::Listed { axis: LoadAxis::Concurrency, levels: vec![4096.0] }, "levels"),
            (LevelPlan::Automatic { levels: 1 }, "levels"),
            (LevelPlan::Automatic { levels: 99 }, "levels"),
        ];
        for (levels, field) in bad {
            assert_eq!(input(levels.clone(), &[]).validate("m").unwrap_err().field, field, "{levels:?}");
        }
        let automatic = input(LevelPlan::Automatic { levels: 6 }, &[]).validate("m").unwrap();
        assert_eq!(automatic.title, "automatic rate sweep on m");
        let mut empty = input(LevelPlan::Listed { axis: LoadAxis::Rate, levels: vec![2.0] }, &[]);
        empty.prompts.clear();
        assert_eq!(empty.validate("m").unwrap_err().field, "prompts");
    }
}
