//! The SSE answer: a role chunk at once, then reasoning and content chunks on their deadlines (each stamped with
//! the simulator's own send time, `sim_us`), the finish chunk, usage and `[DONE]`; or an injected mid-stream fault.

use axum::body::{Body, Bytes};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::{json, Value};
use tokio::time::Instant;

use super::config::{Fault, UsageMode};
use super::plan::{token_text, unix_micros, Plan};

/// Where a stream is.
enum Step {
    Role,
    /// Output chunk `n` (0-based) covering tokens `[from, from + count)` of reasoning-then-content.
    Chunk {
        n: u32,
        from: u32,
    },
    Finish,
    Usage,
    Done,
    End,
}

struct State {
    plan: Plan,
    step: Step,
    deadline: Instant,
    include_usage: bool,
}

fn frame(value: &impl serde::Serialize) -> Bytes {
    let mut bytes = Vec::with_capacity(320);
    bytes.extend_from_slice(b"data: ");
    // Writing to memory cannot fail, and every value here serializes.
    let _ = serde_json::to_writer(&mut bytes, value);
    bytes.extend_from_slice(b"\n\n");
    Bytes::from(bytes)
}

/// A `chat.completion.chunk`, written straight from borrowed fields: a simulator that built a JSON tree per chunk
/// spent most of its core on maps and allocations, and became the limit of the client benchmarks it serves. The
/// fields are in the order a sorted JSON map wrote them, so the bytes on the wire are what they were.
#[derive(serde::Serialize)]
struct Chunk<'a> {
    choices: [Choice<'a>; 1],
    created: u64,
    id: &'a str,
    model: &'a str,
    object: &'static str,
    system_fingerprint: &'a str,
    /// Present (`null` until the end) when the request asked for usage or the server reports it on every chunk.
    #[serde(skip_serializing_if = "Option::is_none")]
    usage: Option<Option<Value>>,
}

#[derive(serde::Serialize)]
struct Choice<'a> {
    delta: Delta<'a>,
    finish_reason: Option<&'a str>,
    index: u32,
    logprobs: Option<()>,
}

/// What a chunk adds: the role first, then reasoning or content (each stamped with the simulator's send time), then
/// nothing beside the finish reason.
#[derive(serde::Serialize, Default)]
struct Delta<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    content: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reasoning_content: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    role: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    sim_us: Option<u64>,
}

impl State {
    fn chunk<'a>(&'a self, delta: Delta<'a>, finish_reason: Option<&'a str>, usage: Option<Value>) -> Chunk<'a> {
        let reports_usage = self.include_usage || self.plan.config.usage == UsageMode::Continuous;
        Chunk {
            choices: [Choice { delta, finish_reason, index: 0, logprobs: None }],
            created: unix_micros() / 1_000_000,
            id: &self.plan.id,
            model: &self.plan.model,
            object: "chat.completion.chunk",
            system_fingerprint: &self.plan.config.system_fingerprint,
            usage: reports_usage.then_some(usage),
        }
    }

    /// The next frame, or `Err` to break the connection (the `reset` fault); `None` ends the body.
    async fn next(&mut self) -> Option<Result<Bytes, std::io::Error>> {
        let total = self.plan.reasoning_tokens + self.plan.output_tokens;
        let per_chunk = self.plan.config.tokens_per_chunk.max(1);
        match self.step {
            Step::Role => {
                self.step = Step::Chunk { n: 0, from: 0 };
                self.deadline = self.plan.received + self.plan.ttft;
                let role = Delta { role: Some("assistant"), content: Some(""), ..Delta::default() };
                Some(Ok(frame(&self.chunk(role, None, None))))
            }
            Step::Chunk { n, from } => {
                if self.plan.fault.is_some() && from >= total / 2 {
                    return self.fault().await;
                }
                if n > 0 {
                    self.deadline += self.plan.config.itl.sample(&mut rand::thread_rng());
                }
                self.plan.timer.sleep_until(self.deadline).await;
                // Reasoning first, then the answer; a chunk never mixes the two.
                let reasoning_left = self.plan.reasoning_tokens.saturating_sub(from);
                let reasoning = reasoning_left > 0;
                let count = if reasoning { per_chunk.min(reasoning_left) } else { per_chunk.min(total - from) };
                let first_word = if reasoning { from } else { from - self.plan.reasoning_tokens };
                let text: String = (first_word..first_word + count).map(token_text).collect();
                let sim_us = Some(unix_micros());
                let delta = if reasoning {
                    Delta { reasoning_content: Some(&text), sim_us, ..Delta::default() }
                } else {
                    Delta { content: Some(&text), sim_us, ..Delta::default() }
                };
                let done = from + count;
                let usage = (self.plan.config.usage == UsageMode::Continuous).then(|| self.plan.usage(done));
                let frame = frame(&self.chunk(delta, None, usage));
                self.step = if done < total { Step::Chunk { n: n + 1, from: done } } else { Step::Finish };
                Some(Ok(frame))
            }
            Step::Finish => {
                self.step = if self.include_usage { Step::Usage } else { Step::Done };
                let usage = (self.plan.config.usage == UsageMode::Continuous).then(|| self.plan.usage(total));
                Some(Ok(frame(&self.chunk(Delta::default(), Some(self.plan.finish_reason()), usage))))
            }
            Step::Usage => {
                self.step = Step::Done;
                let chunk = json!({"id": self.plan.id, "object": "chat.completion.chunk", "created": unix_micros() / 1_000_000,
                                   "model": self.plan.model, "choices": [], "usage": self.plan.usage(total)});
                Some(Ok(frame(&chunk)))
            }
            Step::Done => {
                self.step = Step::End;
                self.plan.count_completed();
                Some(Ok(Bytes::from_static(b"data: [DONE]\n\n")))
            }
            Step::End => None,
        }
    }

    async fn fault(&mut self) -> Option<Result<Bytes, std::io::Error>> {
        self.step = Step::End;
        match self.plan.fault {
            Some(Fault::MidStreamError) => Some(Ok(frame(
                &json!({"error": {"message": "simulated mid-stream failure", "type": "server_error", "code": 500}}),
            ))),
            Some(Fault::Reset) => {
                // What came before the break goes out first: hyper writes a body's frames out when the body waits,
                // and drops what it holds when the body fails. A late timer makes every earlier chunk due at once,
                // so without this wait they were all dropped with the connection (on a loaded machine, often).
                tokio::task::yield_now().await;
                Some(Err(std::io::Error::new(std::io::ErrorKind::ConnectionReset, "simulated reset")))
            }
            Some(Fault::Stall) => {
                std::future::pending::<()>().await;
                None
            }
            _ => None, // truncated: the body just ends
        }
    }
}

pub(super) fn stream_response(plan: Plan, include_usage: bool) -> Response {
    let deadline = plan.received;
    let state = State { plan, step: Step::Role, deadline, include_usage };
    let stream =
        futures::stream::unfold(state, |mut state| async move { state.next().await.map(|item| (item, state)) });
    Response::builder()
        .header("content-type", "text/event-stream")
        .header("cache-control", "no-cache")
        .body(Body::from_stream(stream))
        .unwrap_or_else(|_| StatusCode::INTERNAL_SERVER_ERROR.into_response())
}
