//! Benchmark runs: what a user asks for (`RunPlanInput`), what survives validation (`RunPlan`), and the jobs a
//! plan expands to.

use serde::{Deserialize, Serialize};

use crate::model::{ConnectorId, ValidationError};

/// The agent a run measures: a system prompt, tools and a token budget (sent as `max_tokens`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Agent {
    /// Display name.
    pub name: String,
    /// Sent as the `system` message when set.
    #[serde(default)]
    pub system_prompt: Option<String>,
    /// OpenAI `tools` array, sent as-is when non-empty.
    #[serde(default)]
    pub tools: Vec<serde_json::Value>,
    /// `max_tokens` of every request.
    pub token_budget: u32,
}

/// How requests are paced.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase", deny_unknown_fields)]
pub enum LoadMode {
    /// Closed loop: `concurrency` requests in flight; each sends when the previous one finished.
    #[serde(rename_all = "camelCase")]
    Closed {
        /// Requests in flight.
        concurrency: u32,
    },
    /// Open loop: sends at `rate_per_second` (constant, Poisson or gamma-distributed gaps), at most
    /// `max_concurrency` in flight. A send delayed by the cap is recorded as lag behind its schedule.
    #[serde(rename_all = "camelCase")]
    Open {
        /// Requests per second.
        rate_per_second: f64,
        /// Exponential inter-arrival times instead of a constant gap.
        #[serde(default)]
        poisson: bool,
        /// Requests in flight at most.
        max_concurrency: u32,
        /// Gamma-distributed gaps of this shape (vLLM's burstiness factor): 1 is Poisson, below 1 burstier (gaps
        /// vary more: their coefficient of variation is 1/√burstiness), above 1 more even. The mean gap stays
        /// 1/rate. Not with `poisson`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        burstiness: Option<f64>,
    },
}

impl LoadMode {
    /// How an open loop spaces its sends, in words: `constant spacing`, `Poisson arrivals`, `gamma gaps,
    /// burstiness 0.5`; empty for a closed loop.
    pub fn spacing(&self) -> String {
        match *self {
            Self::Closed { .. } => String::new(),
            Self::Open { burstiness: Some(b), .. } => {
                format!("gamma gaps, burstiness {}", crate::model::trim_number(b))
            }
            Self::Open { poisson: true, .. } => "Poisson arrivals".into(),
            Self::Open { .. } => "constant spacing".into(),
        }
    }

    /// The load as a sweep's level is written: `8 in flight`, `2.5 req/s`.
    pub fn level_text(&self) -> String {
        match self {
            Self::Closed { concurrency } => format!("{concurrency} in flight"),
            Self::Open { rate_per_second, .. } => format!("{} req/s", crate::model::trim_number(*rate_per_second)),
        }
    }
}

/// Whether requests share connections.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ConnectionPolicy {
    /// Keep-alive connections are reused (as production clients do): connection set-up is not in the latency of
    /// most requests.
    #[default]
    Reuse,
    /// Every request opens its own connection (TCP, and TLS for https): its set-up is part of every latency.
    Fresh,
}

/// The connections a closed-loop run on reused connections opened before its first request, so that its first
/// round, like every later one, is measured on open connections (`engine::open_connections`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OpenedAhead {
    /// One per request the run keeps in flight.
    pub asked: u32,
    /// Answered on a connection the server kept open.
    pub kept: u32,
    /// The endpoint answered over HTTP/2, whose requests share connections.
    pub http2: bool,
}

/// A run as a user submits it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RunPlanInput {
    /// The connector to measure.
    pub connector_id: ConnectorId,
    /// Report title; defaults to agent and model.
    #[serde(default)]
    pub title: Option<String>,
    /// The agent.
    pub agent: Agent,
    /// User prompts; each is sent `iterations` times.
    pub prompts: Vec<String>,
    /// Measured iterations per prompt.
    pub iterations: u32,
    /// Warm-up requests before measuring (run, stored, excluded from statistics).
    #[serde(default)]
    pub warmup: u32,
    /// Pacing.
    pub mode: LoadMode,
    /// Per-request time limit, ms (default 120000).
    #[serde(default)]
    pub timeout_ms: Option<u64>,
    /// Stream responses (default true; TTFT is measurable only when streaming).
    #[serde(default = "yes")]
    pub stream: bool,
    /// Sampling temperature (default 0).
    #[serde(default)]
    pub temperature: f64,
    /// Retries of a rate-limited (HTTP 429) request, honouring `Retry-After` (default 0: a 429 is a failure).
    #[serde(default)]
    pub retries: u32,
    /// Reuse connections (default) or open a fresh one per request.
    #[serde(default)]
    pub connections: ConnectionPolicy,
    /// Objectives the run is judged against (`ttft_ms<=500`, `tpot_p95_ms<=50`, …); none by default.
    #[serde(default)]
    pub slos: Vec<String>,
    /// A time limit, s: no request is sent once this long has passed since the first measured send (requests in
    /// flight then finish, each within its timeout); `iterations` is then an upper bound. None: no limit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_s: Option<f64>,
    /// What to send instead of `prompts`: exact token lengths, … (`prompts` empty and `iterations` 1 then; the
    /// workload's answer lengths replace the agent's token budget).
    ///
    /// The browser never writes one here (its form names a saved workload by `workloadId`, saved from the workloads
    /// page), so its build leaves the workload's writer out of the new-run page's WASM (about 4 KB of gzip).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(all(feature = "hydrate", not(feature = "ssr")), serde(skip_serializing))]
    pub workload: Option<crate::model::Workload>,
    /// How the load changes over the run: a ramp up to the mode's load, or an open loop's rate in steps (not written
    /// by the browser, whose form has no ramp yet, for the same reason).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(all(feature = "hydrate", not(feature = "ssr")), serde(skip_serializing))]
    pub shape: Option<super::shape::LoadShape>,
    /// A workload saved in the workspace, sent instead of `workload` (the server copies it into the plan, so the
    /// report keeps it as it was sent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workload_id: Option<crate::model::WorkloadId>,
    /// Whether each prompt starts with a mark of its run (the default), so no run measures an earlier one's prefix
    /// cache; `off` for a cache-warm measurement on purpose.
    #[serde(default)]
    pub prompt_heads: crate::model::PromptHeads,
}

fn yes() -> bool {
    true
}

/// Limits that keep a run within what one server sensibly does.
pub mod limits {
    /// Prompts per run.
    pub const MAX_PROMPTS: usize = 1_000;
    /// Measured requests per run (prompts × iterations).
    pub const MAX_REQUESTS: u64 = 1_000_000;
    /// Requests in flight.
    pub const MAX_CONCURRENCY: u32 = 2_048;
    /// Open-loop rate, requests per second.
    pub const MAX_RATE: f64 = 100_000.0;
    /// Warm-up requests.
    pub const MAX_WARMUP: u32 = 10_000;
    /// `max_tokens`.
    pub const MAX_TOKEN_BUDGET: u32 = 8_192;
    /// Per-request timeout, ms.
    pub const MAX_TIMEOUT_MS: u64 = 600_000;
    /// Retries after HTTP 429.
    pub const MAX_RETRIES: u32 = 5;
    /// Open-loop rate at least, requests per second (one request every 100 s).
    pub const MIN_RATE: f64 = 0.01;
    /// Burstiness (the gamma shape of open-loop gaps) at least: gaps with a coefficient of variation of 10.
    pub const MIN_BURSTINESS: f64 = 0.01;
    /// Burstiness at most: nearly constant gaps.
    pub const MAX_BURSTINESS: f64 = 1_000.0;
    /// Characters of one prompt (about 25,000 tokens at 4 characters a token), and of the system prompt.
    pub const MAX_PROMPT_CHARS: usize = 100_000;
    /// Characters of all prompts of a run together: the run's settings carry them whole to its page.
    pub const MAX_TOTAL_PROMPT_CHARS: usize = 1_000_000;
    /// Characters of a report title.
    pub const MAX_TITLE_CHARS: usize = 200;
    /// Characters of an agent name.
    pub const MAX_AGENT_NAME_CHARS: usize = 100;
    /// A run's time limit, s (a day).
    pub const MAX_DURATION_S: f64 = 86_400.0;
}

/// A plan that passed validation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunPlan {
    /// The connector.
    pub connector_id: ConnectorId,
    /// Report title.
    pub title: String,
    /// The agent.
    pub agent: Agent,
    /// Prompts.
    pub prompts: Vec<String>,
    /// Iterations per prompt.
    pub iterations: u32,
    /// Warm-up requests.
    pub warmup: u32,
    /// Pacing.
    pub mode: LoadMode,
    /// Per-request limit, ms.
    pub timeout_ms: u64,
    /// Streaming.
    pub stream: bool,
    /// Temperature.
    pub temperature: f64,
    /// Retries after HTTP 429.
    #[serde(default)]
    pub retries: u32,
    /// Reuse connections or open a fresh one per request.
    #[serde(default)]
    pub connections: ConnectionPolicy,
    /// Objectives the report judges the run against.
    #[serde(default)]
    pub slos: Vec<crate::model::Slo>,
    /// The time limit of the measured requests' sends, ms (from the first measured send).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
    /// What the run sends instead of its prompts, when it has a workload.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workload: Option<crate::model::Workload>,
    /// How the load changes over the run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shape: Option<super::shape::LoadShape>,
    /// Whether its prompts start with marks of their own (a plan stored before marks existed was sent without).
    #[serde(default = "crate::model::PromptHeads::stored_before_heads")]
    pub prompt_heads: crate::model::PromptHeads,
}

/// One request of a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Job {
    /// Position in the run's send order, from 0.
    pub seq: u64,
    /// Index into the plan's prompts; with a workload, the workload's request (warm-ups follow the measured ones,
    /// so a warm-up never sends a measured request's prompt ahead of it).
    pub prompt_index: u32,
    /// Zero-based iteration of that prompt (warm-ups count separately).
    pub iteration: u32,
    /// Excluded from statistics.
    pub warmup: bool,
}

impl RunPlanInput {
    /// `iterations` of `prompts` from `agent` to `connector_id` at `mode`; every other field as the API sets it
    /// when a request leaves it out (no title, no warm-up, no timeout, streamed, temperature 0, no retries,
    /// reused connections, no objectives, no time limit).
    pub fn new(connector_id: ConnectorId, agent: Agent, prompts: Vec<String>, iterations: u32, mode: LoadMode) -> Self {
        Self {
            connector_id,
            title: None,
            agent,
            prompts,
            iterations,
            warmup: 0,
            mode,
            timeout_ms: None,
            stream: yes(),
            temperature: 0.0,
            retries: 0,
            connections: ConnectionPolicy::default(),
            slos: Vec::new(),
            duration_s: None,
            workload: None,
            shape: None,
            workload_id: None,
            prompt_heads: crate::model::PromptHeads::default(),
        }
    }

    /// Validates every field, naming the first bad one; `model` names the default title.
    pub fn validate(&self, model: &str) -> Result<RunPlan, ValidationError> {
        use limits::*;
        let fail = |field: &str, reason: String| Err(ValidationError::new(field, reason));
        let agent_name = self.checked_agent_name()?;
        if let Some(shape) = &self.shape {
            shape.validate(&self.mode)?;
        }
        self.check_prompts()?;
        if self.iterations == 0 {
            return fail("iterations", "must be at least 1".into());
        }
        let requests = measured_requests(self.workload.as_ref(), &self.prompts, self.iterations);
        if requests > MAX_REQUESTS {
            return fail("iterations", format!("prompts × iterations = {requests}, above the limit of {MAX_REQUESTS}"));
        }
        if self.warmup > MAX_WARMUP {
            return fail("warmup", format!("at most {MAX_WARMUP}"));
        }
        check_load(&self.mode)?;
        let timeout_ms = self.timeout_ms.unwrap_or(120_000);
        if !(1..=MAX_TIMEOUT_MS).contains(&timeout_ms) {
            return fail("timeoutMs", format!("must be between 1 and {MAX_TIMEOUT_MS}"));
        }
        if self.retries > MAX_RETRIES {
            return fail("retries", format!("at most {MAX_RETRIES}"));
        }
        if !(0.0..=2.0).contains(&self.temperature) {
            return fail("temperature", "must be between 0 and 2".into());
        }
        let slos = crate::model::parse_slos(&self.slos)?;
        let duration_ms = match self.duration_s {
            Some(d) if !(d.is_finite() && (1.0..=MAX_DURATION_S).contains(&d)) => {
                return fail("durationS", format!("must be between 1 and {MAX_DURATION_S} seconds"));
            }
            Some(d) => Some((d * 1e3).round() as u64),
            None => None,
        };
        let title = match self.title.as_deref().filter(|t| !t.trim().is_empty()) {
            Some(title) => crate::model::display_name(title, "title", MAX_TITLE_CHARS)?,
            None => format!("{agent_name} on {model}").chars().take(MAX_TITLE_CHARS).collect(),
        };
        Ok(RunPlan {
            connector_id: self.connector_id,
            title,
            agent: self.agent.clone(),
            prompts: self.prompts.clone(),
            iterations: self.iterations,
            warmup: self.warmup,
            mode: self.mode,
            timeout_ms,
            stream: self.stream,
            temperature: self.temperature,
            retries: self.retries,
            connections: self.connections,
            slos,
            duration_ms,
            workload: self.workload.clone(),
            shape: self.shape.clone(),
            prompt_heads: self.prompt_heads,
        })
    }

    /// The agent's name, checked with the rest of the agent: its system prompt, token budget and tools.
    fn checked_agent_name(&self) -> Result<String, ValidationError> {
        use limits::*;
        let fail = |field: &str, reason: String| Err(ValidationError::new(field, reason));
        let name = crate::model::display_name(&self.agent.name, "agent.name", MAX_AGENT_NAME_CHARS)?;
        if let Some(system) = self.agent.system_prompt.as_deref().filter(|s| !s.trim().is_empty()) {
            crate::model::prompt_text(system, "agent.systemPrompt", MAX_PROMPT_CHARS)?;
        }
        if !(1..=MAX_TOKEN_BUDGET).contains(&self.agent.token_budget) {
            return fail("agent.tokenBudget", format!("must be between 1 and {MAX_TOKEN_BUDGET}"));
        }
        if let Some(bad) = self.agent.tools.iter().position(|t| !t.is_object()) {
            return fail("agent.tools", format!("tool {bad} is not a JSON object"));
        }
        Ok(name)
    }

    /// The prompts, or the workload that replaces them: a saved workload already looked up, warm-ups the dataset
    /// can give, a trace replayed in an open loop, and the prompts within their limits.
    fn check_prompts(&self) -> Result<(), ValidationError> {
        use limits::*;
        let fail = |field: &str, reason: String| Err(ValidationError::new(field, reason));
        if self.workload_id.is_some() {
            // The server puts the saved workload in `workload` before validating; here it was not looked up.
            return fail("workloadId", "a saved workload is looked up by the server that runs the plan".into());
        }
        if let Some(workload) = &self.workload {
            workload.validate()?;
            if !self.prompts.is_empty() {
                return fail(
                    "prompts",
                    "a run with a workload sends the workload's prompts; leave prompts empty".into(),
                );
            }
            if self.iterations != 1 {
                return fail(
                    "iterations",
                    "a workload's requests are sent once each: set 1, and the workload's requests".into(),
                );
            }
            match workload {
                crate::model::Workload::Dataset { file, requests, .. } if self.warmup + requests > file.rows => {
                    let reason = format!(
                        "the warm-ups send the dataset's first rows and the requests the rows after them: {} and \
                         {requests} rows, but the file has {}",
                        self.warmup, file.rows
                    );
                    return fail("warmup", reason);
                }
                crate::model::Workload::Trace { .. } if self.warmup > 0 => {
                    return fail("warmup", "a trace is replayed as recorded, without warm-ups: set 0".into());
                }
                crate::model::Workload::Trace { .. } if !matches!(self.mode, LoadMode::Open { .. }) => {
                    let reason = "a trace sends at its recorded instants: use an open loop (its rate is replaced \
                                  by the trace's; its maxConcurrency caps requests in flight)";
                    return fail("mode", reason.into());
                }
                _ => {}
            }
        } else if self.prompts.is_empty() {
            return fail("prompts", "add at least one prompt".into());
        }
        if self.prompts.len() > MAX_PROMPTS {
            return fail("prompts", format!("at most {MAX_PROMPTS} prompts"));
        }
        for (i, prompt) in self.prompts.iter().enumerate() {
            crate::model::prompt_text(prompt, &format!("prompts[{i}]"), MAX_PROMPT_CHARS)?;
        }
        let total_chars: usize = self.prompts.iter().map(|p| p.chars().count()).sum();
        if total_chars > MAX_TOTAL_PROMPT_CHARS {
            return fail("prompts", format!("{total_chars} characters in all; at most {MAX_TOTAL_PROMPT_CHARS}"));
        }
        Ok(())
    }
}

/// The load: a closed loop's concurrency, an open loop's rate, in-flight cap and burstiness within their limits.
fn check_load(mode: &LoadMode) -> Result<(), ValidationError> {
    use limits::*;
    let fail = |field: &str, reason: String| Err(ValidationError::new(field, reason));
    match *mode {
        LoadMode::Closed { concurrency } if !(1..=MAX_CONCURRENCY).contains(&concurrency) => {
            return fail("mode.concurrency", format!("must be between 1 and {MAX_CONCURRENCY}"));
        }
        LoadMode::Open { rate_per_second, .. } if !(MIN_RATE..=MAX_RATE).contains(&rate_per_second) => {
            return fail(
                "mode.ratePerSecond",
                format!("must be between {MIN_RATE} and {MAX_RATE} requests per second"),
            );
        }
        LoadMode::Open { max_concurrency, .. } if !(1..=MAX_CONCURRENCY).contains(&max_concurrency) => {
            return fail("mode.maxConcurrency", format!("must be between 1 and {MAX_CONCURRENCY}"));
        }
        LoadMode::Open { burstiness: Some(b), .. }
            if !(b.is_finite() && (MIN_BURSTINESS..=MAX_BURSTINESS).contains(&b)) =>
        {
            return fail("mode.burstiness", format!("must be between {MIN_BURSTINESS} and {MAX_BURSTINESS}"));
        }
        LoadMode::Open { burstiness: Some(_), poisson: true, .. } => {
            return fail(
                "mode.burstiness",
                "gamma gaps replace Poisson ones: leave poisson off (burstiness 1 is Poisson)".into(),
            );
        }
        _ => {}
    }
    Ok(())
}

/// Measured requests of a plan: its workload's, or every prompt `iterations` times.
fn measured_requests(workload: Option<&crate::model::Workload>, prompts: &[String], iterations: u32) -> u64 {
    match workload {
        Some(workload) => u64::from(workload.requests()),
        None => prompts.len() as u64 * u64::from(iterations),
    }
}

impl RunPlan {
    /// Measured requests: the workload's, or every prompt `iterations` times.
    pub fn measured_requests(&self) -> u64 {
        measured_requests(self.workload.as_ref(), &self.prompts, self.iterations)
    }

    /// Warm-up and measured requests.
    pub fn total_requests(&self) -> u64 {
        u64::from(self.warmup) + self.measured_requests()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input() -> RunPlanInput {
        let agent = Agent { name: "support-bot".into(), system_prompt: None, tools: vec![], token_budget: 256 };
        let prompts = vec!["a".into(), "b".into()];
        let closed = LoadMode::Closed { concurrency: 2 };
        RunPlanInput { warmup: 1, ..RunPlanInput::new(ConnectorId(uuid::Uuid::nil()), agent, prompts, 3, closed) }
    }

    #[test]
    fn a_plan_made_in_code_has_the_defaults_of_one_sent_without_its_optional_fields() {
        let sent: RunPlanInput = serde_json::from_value(serde_json::json!({
            "connectorId": uuid::Uuid::nil(),
            "agent": {"name": "support-bot", "tokenBudget": 256},
            "prompts": ["a", "b"],
            "iterations": 3,
            "mode": {"kind": "closed", "concurrency": 2},
        }))
        .unwrap();
        assert_eq!(RunPlanInput { warmup: 0, ..input() }, sent);
    }

    #[test]
    fn expands_to_warmups_then_every_prompt_per_iteration() {
        let plan = input().validate("m").unwrap();
        assert_eq!(plan.title, "support-bot on m");
        let jobs: Vec<(u32, u32, bool)> = plan.jobs().map(|j| (j.prompt_index, j.iteration, j.warmup)).collect();
        assert_eq!(
            jobs,
            vec![
                (0, 0, true),
                (0, 0, false),
                (1, 0, false),
                (0, 1, false),
                (1, 1, false),
                (0, 2, false),
                (1, 2, false)
            ]
        );
        assert_eq!(plan.total_requests(), 7);
        assert_eq!(plan.jobs().last().unwrap().seq, 6);
        assert!(plan.sessions().all(|s| s.turns == 1), "without a multi-turn workload every job goes alone");
    }

    #[test]
    fn names_the_field_of_every_out_of_range_value() {
        let cases: Vec<(RunPlanInput, &str)> = vec![
            (RunPlanInput { iterations: 0, ..input() }, "iterations"),
            (RunPlanInput { prompts: vec![], ..input() }, "prompts"),
            (RunPlanInput { prompts: vec!["ok".into(), " ".into()], ..input() }, "prompts[1]"),
            (RunPlanInput { mode: LoadMode::Closed { concurrency: 0 }, ..input() }, "mode.concurrency"),
            (
                RunPlanInput {
                    mode: LoadMode::Open { rate_per_second: 0.0, poisson: false, max_concurrency: 4, burstiness: None },
                    ..input()
                },
                "mode.ratePerSecond",
            ),
            (
                RunPlanInput {
                    mode: LoadMode::Open {
                        rate_per_second: f64::NAN,
                        poisson: true,
                        max_concurrency: 4,
                        burstiness: None,
                    },
                    ..input()
                },
                "mode.ratePerSecond",
            ),
            (
                RunPlanInput {
                    mode: LoadMode::Open {
                        rate_per_second: 1e-300,
                        poisson: false,
                        max_concurrency: 4,
                        burstiness: None,
                    },
                    ..input()
                },
                "mode.ratePerSecond",
            ),
            (RunPlanInput { prompts: vec!["a\0b".into()], ..input() }, "prompts[0]"),
            (RunPlanInput { prompts: vec!["x".repeat(limits::MAX_PROMPT_CHARS + 1)], ..input() }, "prompts[0]"),
            (RunPlanInput { prompts: vec!["x".repeat(90_000); 12], ..input() }, "prompts"),
            (
                RunPlanInput { agent: Agent { name: "\u{200B}\u{FEFF}".into(), ..input().agent }, ..input() },
                "agent.name",
            ),
            (RunPlanInput { title: Some("t".repeat(201)), ..input() }, "title"),
            (RunPlanInput { title: Some("a\0".into()), ..input() }, "title"),
            (RunPlanInput { timeout_ms: Some(0), ..input() }, "timeoutMs"),
            (RunPlanInput { temperature: 3.0, ..input() }, "temperature"),
            (
                RunPlanInput {
                    mode: LoadMode::Open {
                        rate_per_second: 5.0,
                        poisson: false,
                        max_concurrency: 4,
                        burstiness: Some(0.0),
                    },
                    ..input()
                },
                "mode.burstiness",
            ),
            (
                RunPlanInput {
                    mode: LoadMode::Open {
                        rate_per_second: 5.0,
                        poisson: true,
                        max_concurrency: 4,
                        burstiness: Some(0.5),
                    },
                    ..input()
                },
                "mode.burstiness",
            ),
            (RunPlanInput { iterations: 600_000, ..input() }, "iterations"),
            (RunPlanInput { agent: Agent { token_budget: 0, ..input().agent }, ..input() }, "agent.tokenBudget"),
            (
                RunPlanInput { agent: Agent { tools: vec![serde_json::json!(1)], ..input().agent }, ..input() },
                "agent.tools",
            ),
        ];
        for (bad, field) in cases {
            assert_eq!(bad.validate("m").unwrap_err().field, field);
        }
    }
}
