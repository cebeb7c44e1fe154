//! What each job of a run sends: one of the plan's prompts, or a workload's request made ahead of it (a prompt of
//! an exact length, an answer length); and what the job's row keeps of it.

use crate::engine::{ChatMessage, ChatRequest, HttpClient, RequestTarget, StreamOptions};
use crate::model::{IterationRecord, Job, RunPlan};
use crate::workload::{PreparedRequests, RequestMaker, ServerTokenizer, TokenizeError};

/// Where a run's requests come from.
pub enum Requests {
    /// The plan's prompts, each with the agent's token budget.
    Prompts,
    /// A workload's requests, made ahead by the server's tokenizer.
    Workload(PreparedRequests),
}

/// What a finished job's row keeps of what it sent.
pub enum Sent {
    /// The plan's prompt of this index.
    Planned(u32),
    /// A workload's request.
    Made {
        /// Its prompt.
        prompt: String,
        /// The prompt's length as drawn, and as the tokenizer made it; the answer's length asked.
        lengths: (u32, u32, u32),
    },
    /// A workload's request whose prompt could not be made: its lengths as drawn.
    Unmade {
        /// The prompt's length as drawn; the answer's length asked.
        lengths: (u32, u32),
    },
}

/// One job's request.
pub struct Outgoing {
    /// The body.
    pub request: ChatRequest,
    /// What its row keeps.
    pub sent: Sent,
}

impl Requests {
    /// The requests of `plan`: for a workload, its prompts start being made with the tokenizer of the server behind
    /// `target` (its `/tokenize`: an error when it has none).
    pub async fn of(
        plan: &RunPlan,
        client: &HttpClient,
        target: &RequestTarget,
        model: &str,
    ) -> Result<Self, TokenizeError> {
        let Some(workload) = &plan.workload else { return Ok(Self::Prompts) };
        let tokenizer = ServerTokenizer::discover(client, target, model).await?;
        let order = plan.jobs().map(|job| job.prompt_index);
        Ok(Self::Workload(PreparedRequests::start(RequestMaker::new(workload.clone(), tokenizer), order)))
    }

    /// The request of `job` (waiting for a workload's to be made), or why it could not be made and what its row
    /// keeps.
    pub async fn outgoing(
        &self,
        plan: &RunPlan,
        model: &str,
        job: Job,
        ask_for_usage: bool,
    ) -> Result<Outgoing, (TokenizeError, Sent)> {
        let (content, max_tokens, ignore_eos, sent) = match self {
            Self::Prompts => {
                let prompt = plan.prompts[job.prompt_index as usize].clone();
                (prompt, plan.agent.token_budget, false, Sent::Planned(job.prompt_index))
            }
            Self::Workload(prepared) => {
                let made = prepared.take(job.prompt_index).await.map_err(|error| {
                    let lengths = prepared.lengths(job.prompt_index);
                    (error, Sent::Unmade { lengths })
                })?;
                let lengths = (made.asked_input, made.made_input, made.asked_output);
                let row_prompt = crate::model::row_prompt(&made.text);
                // A server with a `/tokenize` is a self-hosted engine, and every one of them (llama.cpp, vLLM,
                // SGLang) takes `ignore_eos`: the answer runs to its asked length.
                (made.text, made.asked_output, true, Sent::Made { prompt: row_prompt, lengths })
            }
        };
        let mut messages = Vec::with_capacity(2);
        if let Some(system) = plan.agent.system_prompt.as_deref().filter(|s| !s.trim().is_empty()) {
            messages.push(ChatMessage { role: "system", content: system.to_string() });
        }
        messages.push(ChatMessage { role: "user", content });
        let request = ChatRequest {
            model: model.to_string(),
            messages,
            tools: plan.agent.tools.clone(),
            max_tokens,
            temperature: plan.temperature,
            stream: plan.stream,
            stream_options: (plan.stream && ask_for_usage).then_some(StreamOptions { include_usage: true }),
            ignore_eos,
        };
        Ok(Outgoing { request, sent })
    }
}

impl Sent {
    /// The row of a finished job: its prompt and, for a workload's request, the lengths asked.
    pub fn record(
        self,
        plan: &RunPlan,
        job: Job,
        measurement: &crate::model::Measurement,
        prices: (Option<f64>, Option<f64>),
    ) -> IterationRecord {
        let record = |prompt: &str| IterationRecord::from_measurement(prompt, job, measurement, prices.0, prices.1);
        match self {
            Self::Planned(index) => record(&plan.prompts[index as usize]),
            Self::Made { prompt, lengths: (asked_input, made_input, asked_output) } => IterationRecord {
                asked_input_tokens: Some(asked_input),
                made_input_tokens: Some(made_input),
                asked_output_tokens: Some(asked_output),
                // Already shortened for its row.
                prompt,
                ..record("")
            },
            Self::Unmade { lengths: (asked_input, asked_output) } => IterationRecord {
                asked_input_tokens: Some(asked_input),
                asked_output_tokens: Some(asked_output),
                ..record("(its prompt could not be made)")
            },
        }
    }
}
