//! What each job of a run sends: one of the plan's prompts, or a workload's request made ahead of it (a prompt of
//! an exact length, an answer length) after the conversation so far when it is a later turn of one; and what the
//! job's row keeps of it.

use std::collections::HashMap;
use std::ops::ControlFlow;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use crate::engine::{ChatMessage, ChatRequest, HttpClient, RequestTarget, StreamOptions};
use crate::model::{IterationRecord, Job, LoadMode, RunPlan, Session};
use crate::workload::service::{read_trace, DatasetError, MakeError, PreparedRequests, RequestMaker, Tokenizer};

/// Where a run's requests come from.
pub enum Requests {
    /// The plan's prompts, each with the agent's token budget (and the run's mark, when its prompts start with one
    /// each).
    Prompts {
        /// The run's mark.
        run_mark: Option<String>,
    },
    /// A workload's requests, made ahead by the server's tokenizer.
    Workload {
        /// Each request's own message and lengths.
        prepared: PreparedRequests,
        /// The conversations waiting for their next turn, by the request index of their first turn: every message
        /// sent and answer returned so far (a multi-turn workload's; held only while the conversation goes on).
        conversations: Mutex<HashMap<u32, Vec<ChatMessage>>>,
        /// A trace's send instants, sped up as asked.
        replay: Option<Arc<[Duration]>>,
    },
}

/// What a finished job's row keeps of what it sent.
pub enum Sent {
    /// The plan's prompt of this index.
    Planned(u32),
    /// A workload's request.
    Made {
        /// Its prompt.
        prompt: String,
        /// The prompt's length as drawn, and as the tokenizer made it; the answer's length asked (none for a
        /// dataset's rows sent as written, or an answer left to the agent's budget).
        lengths: (Option<u32>, Option<u32>, Option<u32>),
    },
    /// A workload's request whose prompt could not be made: its lengths as drawn.
    Unmade {
        /// The prompt's length as drawn; the answer's length asked (none when they come from a file's row).
        lengths: (Option<u32>, Option<u32>),
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
    /// `target` (its `/tokenize`; without one `tokenizer_file`, else an estimate; a dataset needs none), and a trace's
    /// instants are read; an uploaded dataset's rows are read from `uploaded`, its text.
    pub async fn of(
        plan: &RunPlan,
        client: &HttpClient,
        target: &RequestTarget,
        model: &str,
        tokenizer_file: Option<&std::path::Path>,
        uploaded: Option<Arc<str>>,
    ) -> Result<Self, MakeError> {
        // Drawn for each run, so a repetition, a sweep's next level or Guard's next evaluation is marked anew.
        let run_mark = plan.prompt_heads.unique().then(|| crate::model::run_mark(rand::random()));
        let Some(workload) = &plan.workload else { return Ok(Self::Prompts { run_mark }) };
        let tokenizer = match workload.needs_tokenizer() {
            true => Some(Tokenizer::choose(client, target, model, tokenizer_file).await?),
            false => None,
        };
        let replay = match workload {
            crate::model::Workload::Trace { file, requests, speedup, .. } => {
                let (path, format, requests, speedup) = (file.path.clone(), file.format, *requests, *speedup);
                let read = tokio::task::spawn_blocking(move || trace_instants(&path, format, requests, speedup)).await;
                Some(read.map_err(|e| DatasetError::Read(e.to_string()))??)
            }
            _ => None,
        };
        let maker = RequestMaker::new(workload.clone(), tokenizer).reading(uploaded).marked(run_mark);
        let prepared = PreparedRequests::start(maker, making_order(plan));
        Ok(Self::Workload { prepared, conversations: Mutex::default(), replay })
    }

    /// Waits until a workload's first requests are made (the plan's own prompts need no making), so that the
    /// schedule starts with prompts ready rather than its first sends waiting on the making.
    pub async fn made_before_start(&self) {
        if let Self::Workload { prepared, .. } = self {
            prepared.made_ahead(crate::workload::service::MADE_BEFORE_START).await;
        }
    }

    /// The tokenizer the workload's prompts are made with, when they are made.
    pub fn tokenizer(&self) -> Option<crate::model::PromptTokenizer> {
        match self {
            Self::Workload { prepared, .. } => prepared.maker().tokenizer_used(),
            Self::Prompts { .. } => None,
        }
    }

    /// A trace's send instants, when the run replays one.
    pub fn replay(&self) -> Option<Arc<[Duration]>> {
        match self {
            Self::Workload { replay, .. } => replay.clone(),
            Self::Prompts { .. } => None,
        }
    }

    /// How long `job`'s user thinks before sending it: a multi-turn workload's pause between turns.
    pub fn think_before(&self, job: Job) -> Duration {
        match self {
            Self::Prompts { .. } => Duration::ZERO,
            Self::Workload { prepared, .. } => prepared.maker().think_before(job.prompt_index),
        }
    }

    /// Keeps the conversation `job` carried on, `messages` (what it sent) and the `answer` it got, for its next
    /// turn; the last turn's is let go. The driver sends a turn only after its predecessor answered, so every turn
    /// after the first finds its conversation here.
    pub fn answered(&self, plan: &RunPlan, job: Job, mut messages: Vec<ChatMessage>, answer: Option<String>) {
        let Self::Workload { conversations, .. } = self else { return };
        let Some(workload) = &plan.workload else { return };
        let turn = workload.turn_of(job.prompt_index);
        let (Some(answer), true) = (answer, turn + 1 < workload.turns()) else { return };
        // The system prompt goes first in every turn; only the conversation is kept.
        messages.retain(|m| m.role != "system");
        messages.push(ChatMessage { role: "assistant", content: answer });
        let first_turn = job.prompt_index - turn;
        conversations.lock().unwrap_or_else(PoisonError::into_inner).insert(first_turn, messages);
    }

    /// The request of `job` (waiting for a workload's to be made), or why it could not be made and what its row
    /// keeps.
    pub async fn outgoing(
        &self,
        plan: &RunPlan,
        model: &str,
        job: Job,
        ask_for_usage: bool,
    ) -> Result<Outgoing, (MakeError, Sent)> {
        let mut messages = Vec::with_capacity(2);
        if let Some(system) = plan.agent.system_prompt.as_deref().filter(|s| !s.trim().is_empty()) {
            messages.push(ChatMessage { role: "system", content: system.to_string() });
        }
        let (content, max_tokens, ignore_eos, sent) = match self {
            Self::Prompts { run_mark } => {
                let prompt = &plan.prompts[job.prompt_index as usize];
                let prompt = crate::model::marked_prompt(run_mark.as_deref(), job.seq, prompt);
                (prompt, plan.agent.token_budget, false, Sent::Planned(job.prompt_index))
            }
            Self::Workload { prepared, conversations, .. } => {
                let turn = prepared.maker().workload().turn_of(job.prompt_index);
                if turn > 0 {
                    let first_turn = job.prompt_index - turn;
                    let mut kept = conversations.lock().unwrap_or_else(PoisonError::into_inner);
                    messages.extend(kept.remove(&first_turn).unwrap_or_default());
                }
                let made = prepared.take(job.prompt_index).await.map_err(|error| {
                    let lengths = prepared.lengths(job.prompt_index);
                    (error, Sent::Unmade { lengths })
                })?;
                let lengths = (made.asked_input, made.made_input, made.asked_output);
                let row_prompt = crate::model::row_prompt(&made.text);
                let (max_tokens, ignore_eos) = made.answer_limit(plan.agent.token_budget);
                messages.extend(
                    made.context.into_iter().map(|(role, content)| ChatMessage { role: role.as_str(), content }),
                );
                (made.text, max_tokens, ignore_eos, Sent::Made { prompt: row_prompt, lengths })
            }
        };
        messages.push(ChatMessage { role: "user", content });
        let keep_answer = plan.workload.as_ref().is_some_and(|w| w.turns() > 1);
        let request = ChatRequest {
            model: model.to_string(),
            messages,
            tools: plan.agent.tools.clone(),
            max_tokens,
            temperature: plan.temperature,
            stream: plan.stream,
            stream_options: (plan.stream && ask_for_usage).then_some(StreamOptions { include_usage: true }),
            ignore_eos,
            keep_answer,
        };
        Ok(Outgoing { request, sent })
    }
}

/// The instants of a trace's first `requests` rows, `speedup` times sooner than recorded.
fn trace_instants(
    path: &str,
    format: crate::model::TraceFormat,
    requests: u32,
    speedup: f64,
) -> Result<Arc<[Duration]>, DatasetError> {
    let mut instants = Vec::with_capacity(requests as usize);
    read_trace(std::path::Path::new(path), format, |_, row| {
        instants.push(Duration::from_secs_f64(row.at_us as f64 / 1e6 / speedup));
        if instants.len() < requests as usize {
            ControlFlow::Continue(())
        } else {
            ControlFlow::Break(())
        }
    })?;
    Ok(instants.into())
}

/// The order a workload's requests are made in: the order they are sent. Conversations go out in blocks of as
/// many as the run keeps in flight, each sending its turns in turn, so turn 1 of the block's every conversation is
/// made before any turn 2 (made one conversation after another, a later conversation's first turn would wait behind
/// every turn of the earlier ones).
fn making_order(plan: &RunPlan) -> impl Iterator<Item = u32> + Send + 'static {
    let in_flight = match plan.mode {
        LoadMode::Closed { concurrency } => concurrency,
        LoadMode::Open { max_concurrency, .. } => max_concurrency,
    } as usize;
    let mut sessions = plan.sessions();
    let blocks = std::iter::from_fn(move || {
        let block: Vec<Session> = sessions.by_ref().take(in_flight.max(1)).collect();
        (!block.is_empty()).then_some(block)
    });
    blocks.flat_map(|block| {
        let turns = block.iter().map(|s| s.turns).max().unwrap_or(0);
        (0..turns).flat_map(move |turn| {
            let of_turn: Vec<u32> =
                block.iter().filter(|s| turn < s.turns).map(|s| s.turn(turn).prompt_index).collect();
            of_turn
        })
    })
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
                asked_input_tokens: asked_input,
                made_input_tokens: made_input,
                asked_output_tokens: asked_output,
                // Already shortened for its row.
                prompt,
                ..record("")
            },
            Self::Unmade { lengths: (asked_input, asked_output) } => IterationRecord {
                asked_input_tokens: asked_input,
                asked_output_tokens: asked_output,
                ..record("(its prompt could not be made)")
            },
        }
    }
}
