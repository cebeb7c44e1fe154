//! An A/B test's plan: the same prompts, iterations, token budget, temperature and load sent to a baseline and a
//! candidate endpoint (e.g. speculative decoding off and on), once per cell of a sweep over concurrency levels and
//! temperatures. Validated here, so the browser, the API and the command line refuse the same things.

use serde::{Deserialize, Serialize};

use crate::model::{prompt_text, AbTestId, ConnectorId, RunStatus, ValidationError};

/// An A/B test as the browser or the API asks for it: two stored connectors and the plan.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AbTestInput {
    /// The reference (e.g. speculative decoding off).
    pub baseline_connector_id: ConnectorId,
    /// The endpoint tried against it (e.g. speculative decoding on).
    pub candidate_connector_id: ConnectorId,
    /// What to send.
    pub plan: AbPlanInput,
}

/// An A/B test as lists show it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AbTestSummary {
    /// Its id.
    pub id: AbTestId,
    /// Title.
    pub title: String,
    /// The baseline connector's name when it started.
    pub baseline_name: String,
    /// The candidate connector's name when it started.
    pub candidate_name: String,
    /// Life-cycle state (the same states as a run's).
    pub status: RunStatus,
    /// Requests finished, both arms, warm-ups included.
    pub done_requests: u64,
    /// Requests planned.
    pub total_requests: u64,
    /// Why it failed, if it did.
    pub failure: Option<String>,
    /// Start, unix ms.
    pub created_at_ms: i64,
    /// End, unix ms.
    pub finished_at_ms: Option<i64>,
}

/// Limits of one A/B test.
pub mod ab_limits {
    /// Prompts.
    pub const MAX_PROMPTS: usize = 200;
    /// Measured requests per arm in one cell (prompts × iterations).
    pub const MAX_REQUESTS_PER_CELL: u64 = 5_000;
    /// Cells of the sweep (concurrency levels × temperatures).
    pub const MAX_CELLS: usize = 12;
    /// Requests in flight per arm.
    pub const MAX_CONCURRENCY: u32 = 256;
    /// Warm-up requests per arm before each cell.
    pub const MAX_WARMUP: u32 = 50;
    /// Highest temperature.
    pub const MAX_TEMPERATURE: f64 = 2.0;
}

/// What a user asks for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AbPlanInput {
    /// Title; defaults to "baseline vs candidate".
    #[serde(default)]
    pub title: Option<String>,
    /// User prompts, each sent `iterations` times to each arm in each cell.
    pub prompts: Vec<String>,
    /// Measured iterations per prompt, per arm, per cell.
    pub iterations: u32,
    /// Warm-up requests per arm before each cell (default 1; excluded from the figures).
    #[serde(default = "one")]
    pub warmup: u32,
    /// `max_tokens` of every request (default 128).
    #[serde(default = "default_max_tokens")]
    pub max_tokens: u32,
    /// Temperatures swept (default `[0]`).
    #[serde(default = "default_temperatures")]
    pub temperatures: Vec<f64>,
    /// Requests in flight per arm, swept (default `[1]`).
    #[serde(default = "default_concurrencies")]
    pub concurrencies: Vec<u32>,
    /// Per-request time limit, ms (default 120000).
    #[serde(default)]
    pub timeout_ms: Option<u64>,
    /// A system prompt sent before each user prompt.
    #[serde(default)]
    pub system_prompt: Option<String>,
    /// What each cell sends to both arms instead of `prompts`: a synthetic, shared-prefix or uploaded-dataset
    /// workload (`prompts` empty and `iterations` 1 then), each request made once and sent to both.
    ///
    /// The browser names a saved workload by `workloadId` instead, so its build leaves the workload's writer out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(all(feature = "hydrate", not(feature = "ssr")), serde(skip_serializing))]
    pub workload: Option<crate::model::Workload>,
    /// A workload saved in the workspace, sent instead of `workload` (the server copies it into the plan).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workload_id: Option<crate::model::WorkloadId>,
    /// Whether each prompt starts with a mark of its own cell, arm and request (the default), so that neither arm
    /// measures what the other, an earlier cell or an earlier test left in a server's prefix cache. The browser's
    /// form sends the default, so its build leaves the writer out.
    #[serde(default)]
    #[cfg_attr(all(feature = "hydrate", not(feature = "ssr")), serde(skip_serializing))]
    pub prompt_heads: crate::model::PromptHeads,
}

crate::model::asks_for_workload!(AbPlanInput);

fn one() -> u32 {
    1
}

fn default_max_tokens() -> u32 {
    128
}

fn default_temperatures() -> Vec<f64> {
    vec![0.0]
}

fn default_concurrencies() -> Vec<u32> {
    vec![1]
}

/// A validated plan.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AbPlan {
    /// Title.
    pub title: String,
    /// Prompts.
    pub prompts: Vec<String>,
    /// Measured iterations per prompt, per arm, per cell.
    pub iterations: u32,
    /// Warm-ups per arm per cell.
    pub warmup: u32,
    /// `max_tokens`.
    pub max_tokens: u32,
    /// The cells, in the order they run: each concurrency level at each temperature.
    pub cells: Vec<AbCellPlan>,
    /// Per-request limit, ms.
    pub timeout_ms: u64,
    /// System prompt, when set.
    pub system_prompt: Option<String>,
    /// The workload each cell sends instead of the prompts (with a seed of the cell's own), when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workload: Option<crate::model::Workload>,
    /// Whether prompts start with marks (tests stored before marks existed were sent without). No page shows it, so
    /// the browser's build neither reads nor writes it.
    #[serde(default = "crate::model::PromptHeads::stored_before_heads")]
    #[cfg_attr(all(feature = "hydrate", not(feature = "ssr")), serde(skip))]
    pub prompt_heads: crate::model::PromptHeads,
}

/// One cell of the sweep.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AbCellPlan {
    /// Requests in flight per arm.
    pub concurrency: u32,
    /// Sampling temperature.
    pub temperature: f64,
}

impl AbPlan {
    /// Measured requests per arm in one cell: the workload's, or every prompt `iterations` times.
    pub fn requests_per_cell(&self) -> u64 {
        match &self.workload {
            Some(workload) => u64::from(workload.requests()),
            None => self.prompts.len() as u64 * u64::from(self.iterations),
        }
    }

    /// Every request the test sends, both arms, warm-ups included (for progress).
    pub fn total_requests(&self) -> u64 {
        2 * self.cells.len() as u64 * (self.requests_per_cell() + u64::from(self.warmup))
    }
}

impl AbPlanInput {
    /// Validates every field, naming the first bad one.
    pub fn validate(&self) -> Result<AbPlan, ValidationError> {
        use ab_limits::*;
        let fail = |field: &str, reason: String| Err(ValidationError::new(field, reason));
        if self.workload_id.is_some() {
            // The server puts the saved workload in `workload` before validating; here it was not looked up.
            return fail("workloadId", "a saved workload is looked up by the server that runs the test".into());
        }
        if let Some(workload) = &self.workload {
            within_an_ab_test(workload, self)?;
        } else if self.prompts.is_empty() {
            return fail("prompts", "add at least one prompt".into());
        }
        if self.prompts.len() > MAX_PROMPTS {
            return fail("prompts", format!("at most {MAX_PROMPTS} prompts"));
        }
        for (i, prompt) in self.prompts.iter().enumerate() {
            prompt_text(prompt, &format!("prompts[{i}]"), crate::model::limits::MAX_PROMPT_CHARS)?;
        }
        if let Some(system) = self.system_prompt.as_deref().filter(|s| !s.trim().is_empty()) {
            prompt_text(system, "systemPrompt", crate::model::limits::MAX_PROMPT_CHARS)?;
        }
        if self.iterations == 0 {
            return fail("iterations", "must be at least 1".into());
        }
        let per_cell = match &self.workload {
            Some(workload) => u64::from(workload.requests()),
            None => self.prompts.len() as u64 * u64::from(self.iterations),
        };
        if per_cell > MAX_REQUESTS_PER_CELL {
            return fail(
                "iterations",
                format!(
                    "prompts × iterations = {per_cell} per arm and cell, above the limit of {MAX_REQUESTS_PER_CELL}"
                ),
            );
        }
        if self.warmup > MAX_WARMUP {
            return fail("warmup", format!("at most {MAX_WARMUP}"));
        }
        if !(1..=crate::model::limits::MAX_TOKEN_BUDGET).contains(&self.max_tokens) {
            return fail("maxTokens", format!("must be between 1 and {}", crate::model::limits::MAX_TOKEN_BUDGET));
        }
        if self.temperatures.is_empty() {
            return fail("temperatures", "give at least one temperature".into());
        }
        if let Some(bad) = self.temperatures.iter().find(|t| !(0.0..=MAX_TEMPERATURE).contains(*t)) {
            return fail("temperatures", format!("{bad} is outside 0 to {MAX_TEMPERATURE}"));
        }
        if self.concurrencies.is_empty() {
            return fail("concurrencies", "give at least one concurrency level".into());
        }
        if let Some(bad) = self.concurrencies.iter().find(|c| !(1..=MAX_CONCURRENCY).contains(*c)) {
            return fail("concurrencies", format!("{bad} is outside 1 to {MAX_CONCURRENCY}"));
        }
        let mut concurrencies = self.concurrencies.clone();
        concurrencies.sort_unstable();
        concurrencies.dedup();
        let mut temperatures = self.temperatures.clone();
        temperatures.sort_by(f64::total_cmp);
        temperatures.dedup();
        let cells: Vec<AbCellPlan> = temperatures
            .iter()
            .flat_map(|&temperature| {
                concurrencies.iter().map(move |&concurrency| AbCellPlan { concurrency, temperature })
            })
            .collect();
        if cells.len() > MAX_CELLS {
            return fail(
                "concurrencies",
                format!(
                    "{} concurrency level(s) × {} temperature(s) = {} cells; at most {MAX_CELLS}",
                    concurrencies.len(),
                    temperatures.len(),
                    cells.len()
                ),
            );
        }
        let timeout_ms = self.timeout_ms.unwrap_or(120_000);
        if !(1..=crate::model::limits::MAX_TIMEOUT_MS).contains(&timeout_ms) {
            return fail("timeoutMs", format!("must be between 1 and {}", crate::model::limits::MAX_TIMEOUT_MS));
        }
        let title = match self.title.as_deref().map(str::trim).filter(|t| !t.is_empty()) {
            Some(title) => crate::model::display_name(title, "title", 200)?,
            None => "baseline vs candidate".to_string(),
        };
        Ok(AbPlan {
            title,
            prompts: self.prompts.clone(),
            iterations: self.iterations,
            warmup: self.warmup,
            max_tokens: self.max_tokens,
            cells,
            timeout_ms,
            system_prompt: self.system_prompt.clone().filter(|s| !s.trim().is_empty()),
            workload: self.workload.clone(),
            prompt_heads: self.prompt_heads,
        })
    }
}

/// Refuses a workload an A/B test cannot send: one that does not fit rounds sent to both arms alike (a multi-turn
/// conversation carries each arm's own answers, a trace its recorded instants), or one beside prompts.
fn within_an_ab_test(workload: &crate::model::Workload, input: &AbPlanInput) -> Result<(), ValidationError> {
    use crate::model::Workload;
    let fail = |field: &str, reason: &str| Err(ValidationError::new(field, reason));
    if matches!(workload, Workload::MultiTurn { .. } | Workload::Trace { .. }) {
        return fail(
            "workload.kind",
            "an A/B test sends the same requests to both arms in rounds: a multi-turn conversation would carry each \
             arm's own answers and a trace its recorded instants; send those in a run of each endpoint",
        );
    }
    workload.validate()?;
    if !input.prompts.is_empty() {
        return fail("prompts", "a test with a workload sends the workload's requests; leave prompts empty");
    }
    if input.iterations != 1 {
        return fail("iterations", "a workload's requests are sent once each per arm and cell: set 1");
    }
    if let Workload::Dataset { file, requests, .. } = workload {
        if u64::from(input.warmup) + u64::from(*requests) > u64::from(file.rows) {
            let reason = format!(
                "{} warm-up(s) and {requests} request(s) need more rows than the file's {}",
                input.warmup, file.rows
            );
            return Err(ValidationError::new("workload.requests", reason));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input() -> AbPlanInput {
        serde_json::from_value(serde_json::json!({"prompts": ["a", "b"], "iterations": 3})).unwrap()
    }

    #[test]
    fn defaults_make_one_cell_at_concurrency_1_and_temperature_0() {
        let plan = input().validate().unwrap();
        assert_eq!(plan.cells, [AbCellPlan { concurrency: 1, temperature: 0.0 }]);
        assert_eq!((plan.warmup, plan.max_tokens, plan.timeout_ms), (1, 128, 120_000));
        assert_eq!((plan.requests_per_cell(), plan.total_requests()), (6, 14));
        assert_eq!(plan.title, "baseline vs candidate");
    }

    #[test]
    fn a_sweep_runs_each_concurrency_at_each_temperature_once() {
        let plan =
            AbPlanInput { concurrencies: vec![4, 1, 4], temperatures: vec![0.8, 0.0], ..input() }.validate().unwrap();
        let cells: Vec<(u32, f64)> = plan.cells.iter().map(|c| (c.concurrency, c.temperature)).collect();
        assert_eq!(cells, [(1, 0.0), (4, 0.0), (1, 0.8), (4, 0.8)]);
    }

    #[test]
    fn every_bad_field_is_named_with_what_is_allowed() {
        let field = |i: AbPlanInput| i.validate().unwrap_err().field;
        assert_eq!(field(AbPlanInput { prompts: vec![], ..input() }), "prompts");
        assert_eq!(field(AbPlanInput { prompts: vec!["  ".into()], ..input() }), "prompts[0]");
        assert_eq!(field(AbPlanInput { iterations: 0, ..input() }), "iterations");
        assert_eq!(field(AbPlanInput { iterations: 2_501, ..input() }), "iterations");
        assert_eq!(field(AbPlanInput { max_tokens: 0, ..input() }), "maxTokens");
        assert_eq!(field(AbPlanInput { temperatures: vec![f64::NAN], ..input() }), "temperatures");
        assert_eq!(field(AbPlanInput { temperatures: vec![2.5], ..input() }), "temperatures");
        assert_eq!(field(AbPlanInput { concurrencies: vec![0], ..input() }), "concurrencies");
        assert_eq!(field(AbPlanInput { warmup: 51, ..input() }), "warmup");
        assert_eq!(field(AbPlanInput { timeout_ms: Some(0), ..input() }), "timeoutMs");
        let many = AbPlanInput { concurrencies: (1..=7).collect(), temperatures: vec![0.0, 1.0], ..input() };
        let e = many.validate().unwrap_err();
        assert_eq!(
            (e.field.as_str(), e.reason.as_str()),
            ("concurrencies", "7 concurrency level(s) × 2 temperature(s) = 14 cells; at most 12")
        );
    }
}
