//! The `/v1/chat/completions` handler: validates the request, draws this response's delays and fault, then
//! answers with JSON or hands over to the SSE stream.

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Deserialize;
use serde_json::{json, Value};
use std::sync::Arc;

use tokio::time::Instant;

use super::config::{Fault, SimConfig};
use super::plan::{token_text, unix_micros, Plan};
use super::stream::stream_response;
use super::timing::DeadlineTimer;

#[derive(Debug, Deserialize)]
struct Request {
    model: String,
    messages: Vec<Message>,
    #[serde(default)]
    max_tokens: Option<u32>,
    #[serde(default)]
    max_completion_tokens: Option<u32>,
    #[serde(default)]
    stream: bool,
    #[serde(default)]
    stream_options: Option<StreamOptions>,
}

#[derive(Debug, Deserialize)]
struct Message {
    #[serde(default)]
    content: Value,
}

#[derive(Debug, Deserialize)]
struct StreamOptions {
    #[serde(default)]
    include_usage: bool,
}

pub(super) fn error(status: StatusCode, kind: &str, message: &str) -> Response {
    (status, Json(json!({"error": {"message": message, "type": kind, "param": null, "code": null}}))).into_response()
}

/// The simulator's prompt token count: a quarter of the characters, rounded up (a common rule of thumb).
fn prompt_tokens(messages: &[Message]) -> u32 {
    let chars: usize = messages
        .iter()
        .map(|m| match &m.content {
            Value::String(s) => s.chars().count(),
            other => other.to_string().chars().count(),
        })
        .sum();
    u32::try_from(chars.div_ceil(4)).unwrap_or(u32::MAX).max(1)
}

pub(super) async fn models() -> Json<Value> {
    Json(json!({"object": "list", "data": [{"id": "sim-model", "object": "model", "owned_by": "latency-guard"}]}))
}

/// What every request handler shares.
#[derive(Clone)]
pub(super) struct SimState {
    pub config: Arc<SimConfig>,
    pub timer: DeadlineTimer,
    /// Responses sent to their end (`GET /sim/stats`): the ground truth of what a client could have recorded.
    pub completed: Arc<std::sync::atomic::AtomicU64>,
    /// Serving slots (`--slots`); a fair semaphore, so waiting requests are served in arrival order.
    pub slots: Option<Arc<tokio::sync::Semaphore>>,
    /// Connections accepted by each worker (`GET /sim/stats`): how many a client opened, and how evenly the
    /// kernel spread them.
    pub connections: Arc<[std::sync::atomic::AtomicU64]>,
    /// This worker's place in `connections`.
    pub worker: usize,
}

impl SimState {
    /// Counts a connection this worker accepted.
    pub fn count_connection(&self) {
        if let Some(count) = self.connections.get(self.worker) {
            count.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
    }
}

pub(super) async fn chat_completions(
    State(SimState { config, timer, completed, slots, .. }): State<SimState>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let mut received = Instant::now();
    let received_us = unix_micros();
    if let Some(key) = &config.api_key {
        let presented = headers.get("authorization").and_then(|v| v.to_str().ok());
        if presented != Some(format!("Bearer {key}").as_str()) {
            return error(StatusCode::UNAUTHORIZED, "invalid_request_error", "Incorrect API key provided.");
        }
    }
    let request: Request = match serde_json::from_slice(&body) {
        Ok(r) => r,
        Err(e) => return error(StatusCode::BAD_REQUEST, "invalid_request_error", &format!("invalid body: {e}")),
    };
    if request.messages.is_empty() {
        return error(StatusCode::BAD_REQUEST, "invalid_request_error", "messages must not be empty");
    }
    let (ttft, fault) = {
        let mut rng = rand::thread_rng();
        (config.ttft.sample(&mut rng), config.draw_fault(&mut rng))
    };
    match fault {
        Some(Fault::RateLimit) => {
            let mut response =
                error(StatusCode::TOO_MANY_REQUESTS, "rate_limit_error", "Rate limit reached (simulated).");
            // Both forms, as OpenAI sends them: clients read `retry-after-ms` first.
            response.headers_mut().insert("retry-after", axum::http::HeaderValue::from_static("1"));
            response.headers_mut().insert("retry-after-ms", axum::http::HeaderValue::from_static("20"));
            return response;
        }
        Some(Fault::ServerError) => {
            return error(StatusCode::INTERNAL_SERVER_ERROR, "server_error", "Simulated server error.")
        }
        _ => {}
    }
    // A full server: wait for a slot; the response's own delays count from when it is served, so the wait adds to
    // its time to first token as a queue does.
    let slot = match slots {
        Some(slots) => match slots.acquire_owned().await {
            Ok(permit) => Some(permit),
            Err(_) => return error(StatusCode::SERVICE_UNAVAILABLE, "server_error", "The simulator is stopping."),
        },
        None => None,
    };
    if slot.is_some() {
        received = Instant::now();
    }
    let cap = request.max_completion_tokens.or(request.max_tokens).unwrap_or(u32::MAX).max(1);
    let budget = config.tokens.max(1);
    let reasoning_tokens = config.reasoning_tokens.min(cap.saturating_sub(1));
    let output_tokens = budget.min(cap - reasoning_tokens);
    let plan = Plan {
        id: format!("chatcmpl-sim-{:x}", rand::random::<u64>()),
        model: request.model.clone(),
        prompt_tokens: prompt_tokens(&request.messages),
        reasoning_tokens,
        output_tokens,
        capped: output_tokens < budget,
        received,
        ttft,
        fault,
        config: Arc::clone(&config),
        timer,
        completed,
        _slot: slot,
    };
    let mut response = if request.stream {
        stream_response(plan, request.stream_options.is_some_and(|o| o.include_usage))
    } else {
        complete(plan).await
    };
    if let Ok(value) = axum::http::HeaderValue::from_str(&received_us.to_string()) {
        response.headers_mut().insert("x-sim-received-us", value);
    }
    response
}

/// A non-streamed answer after the whole generation time.
async fn complete(plan: Plan) -> Response {
    let chunks = (plan.reasoning_tokens + plan.output_tokens).div_ceil(plan.config.tokens_per_chunk.max(1));
    let mut done = plan.received + plan.ttft;
    {
        let mut rng = rand::thread_rng();
        for _ in 1..chunks {
            done += plan.config.itl.sample(&mut rng);
        }
    }
    plan.timer.sleep_until(done).await;
    plan.count_completed();
    let content: String = (0..plan.output_tokens).map(token_text).collect();
    let reasoning: String = (0..plan.reasoning_tokens).map(token_text).collect();
    let mut message = json!({"role": "assistant", "content": content});
    if plan.reasoning_tokens > 0 {
        message["reasoning_content"] = Value::String(reasoning);
    }
    Json(json!({
        "id": plan.id,
        "object": "chat.completion",
        "created": unix_micros() / 1_000_000,
        "model": plan.model,
        "system_fingerprint": "latency-guard-sim",
        "choices": [{"index": 0, "message": message, "logprobs": null, "finish_reason": plan.finish_reason()}],
        "usage": plan.usage(plan.reasoning_tokens + plan.output_tokens),
    }))
    .into_response()
}

/// `GET /sim/stats`: how many responses were sent to their end (for benchmarks that count what a crash lost) and
/// how many connections were accepted.
pub(super) async fn stats(State(state): State<SimState>) -> Json<Value> {
    use std::sync::atomic::Ordering::Relaxed;
    let per_worker: Vec<u64> = state.connections.iter().map(|c| c.load(Relaxed)).collect();
    Json(json!({
        "completed": state.completed.load(Relaxed),
        "connections": per_worker.iter().sum::<u64>(),
        "connectionsPerWorker": per_worker,
    }))
}
