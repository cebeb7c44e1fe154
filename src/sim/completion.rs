//! The `/v1/chat/completions` handler: validates the request, draws this response's delays and fault, then
//! answers with JSON or hands over to the SSE stream.

use axum::body::Bytes;
use axum::extract::{ConnectInfo, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use serde::Deserialize;
use serde_json::{json, Value};
use std::sync::Arc;

use tokio::time::Instant;

use super::arrival::Arrival;
use super::config::{Fault, SimConfig};
use super::engine::EngineMetrics;
use super::plan::{token_text, unix_micros, Plan};
use super::prefix_cache::PrefixCache;
use super::stream::stream_response;
use super::timing::DeadlineTimer;
use super::tokenizer;

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
    /// vLLM's and llama.cpp's way of not stopping early: the answer is `max_tokens` long.
    #[serde(default)]
    ignore_eos: bool,
    /// vLLM's floor on the answer's length.
    #[serde(default)]
    min_tokens: Option<u32>,
}

#[derive(Debug, Deserialize)]
pub(super) struct Message {
    #[serde(default)]
    role: String,
    #[serde(default)]
    content: Value,
}

impl Message {
    /// The content as the model reads it: a string as it is, anything else (content parts) as its JSON.
    fn text(&self) -> std::borrow::Cow<'_, str> {
        match &self.content {
            Value::String(s) => s.as_str().into(),
            other => other.to_string().into(),
        }
    }
}

/// The prompt's tokens by the simulator's tokenizer and chat template.
pub(super) fn prompt_tokens(messages: &[Message]) -> Vec<u32> {
    let texts: Vec<_> = messages.iter().map(|m| (m.role.as_str(), m.text())).collect();
    tokenizer::prompt(texts.iter().map(|(role, text)| (*role, text.as_ref())))
}

#[derive(Debug, Deserialize)]
struct StreamOptions {
    #[serde(default)]
    include_usage: bool,
}

pub(super) fn error(status: StatusCode, kind: &str, message: &str) -> Response {
    (status, Json(json!({"error": {"message": message, "type": kind, "param": null, "code": null}}))).into_response()
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
    /// The prefix cache all workers share.
    pub prefix_cache: Arc<PrefixCache>,
    /// What `/metrics` says, shared by all workers.
    pub engine: Arc<EngineMetrics>,
}

impl SimState {
    /// Counts a connection this worker accepted.
    pub fn count_connection(&self) {
        if let Some(count) = self.connections.get(self.worker) {
            count.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
    }
}

/// The 401 to send when the simulator asks for a key and `headers` do not present it.
pub(super) fn refusal(config: &SimConfig, headers: &HeaderMap) -> Option<Response> {
    let key = config.api_key.as_ref()?;
    let presented = headers.get("authorization").and_then(|v| v.to_str().ok());
    (presented != Some(format!("Bearer {key}").as_str()))
        .then(|| error(StatusCode::UNAUTHORIZED, "invalid_request_error", "Incorrect API key provided."))
}

/// The 400 of a body that is not the JSON asked for.
pub(super) fn bad_body(e: &serde_json::Error) -> Response {
    error(StatusCode::BAD_REQUEST, "invalid_request_error", &format!("invalid body: {e}"))
}

/// The answer's length in tokens (reasoning, then content) and whether `max_tokens` cut it: the model's natural
/// answer is `config.tokens` long; `ignore_eos` makes it run to `max_tokens`, `min_tokens` lengthens it.
fn answer_length(config: &SimConfig, request: &Request) -> (u32, u32, bool) {
    let asked_cap = request.max_completion_tokens.or(request.max_tokens);
    let cap = asked_cap.unwrap_or(u32::MAX).max(1);
    let natural = config.tokens.max(1);
    let runs_to_cap = request.ignore_eos && asked_cap.is_some();
    let wanted = if runs_to_cap { cap } else { natural.max(request.min_tokens.unwrap_or(0)) };
    let reasoning_tokens = config.reasoning_tokens.min(cap.saturating_sub(1));
    let output_tokens = wanted.min(cap - reasoning_tokens);
    // An answer that ignores its end stops only at `max_tokens`: its finish reason is "length", as vLLM's is.
    (reasoning_tokens, output_tokens, runs_to_cap || output_tokens < wanted)
}

pub(super) async fn chat_completions(
    State(SimState { config, timer, completed, slots, prefix_cache, engine, .. }): State<SimState>,
    arrival: Option<Extension<ConnectInfo<Arrival>>>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    // From when the request reached the socket: a busy simulator's wait to read it is its own time.
    let (mut received, received_us) = super::arrival::received(arrival.as_ref().map(|info| &info.0 .0));
    if let Some(refused) = refusal(&config, &headers) {
        return refused;
    }
    let request: Request = match serde_json::from_slice(&body) {
        Ok(r) => r,
        Err(e) => return bad_body(&e),
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
    let queued = Instant::now();
    let slot = match slots {
        Some(slots) => {
            let _waiting = engine.waiting();
            match slots.acquire_owned().await {
                Ok(permit) => Some(permit),
                Err(_) => return error(StatusCode::SERVICE_UNAVAILABLE, "server_error", "The simulator is stopping."),
            }
        }
        None => None,
    };
    if slot.is_some() {
        received = Instant::now();
    }
    let queued_s = received.saturating_duration_since(queued).as_secs_f64();
    let (reasoning_tokens, output_tokens, capped) = answer_length(&config, &request);
    let prompt = prompt_tokens(&request.messages);
    let cached = prefix_cache.admit(&prompt);
    let answer = u64::from(reasoning_tokens + output_tokens);
    let running = engine.serving(queued_s, prompt.len() as u64, cached as u64, answer);
    // Only the tokens the cache did not hold are computed before the first token.
    let prefill = config.prefill_per_token.saturating_mul(u32::try_from(prompt.len() - cached).unwrap_or(u32::MAX));
    let plan = Plan {
        id: format!("chatcmpl-sim-{:x}", rand::random::<u64>()),
        model: request.model.clone(),
        prompt_tokens: u32::try_from(prompt.len()).unwrap_or(u32::MAX),
        cached_tokens: u32::try_from(cached).unwrap_or(u32::MAX),
        reasoning_tokens,
        output_tokens,
        capped,
        received,
        ttft: ttft.saturating_add(prefill),
        kept: Some((prefix_cache, prompt)),
        fault,
        config: Arc::clone(&config),
        timer,
        completed,
        engine,
        _running: running,
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
async fn complete(mut plan: Plan) -> Response {
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
    let content = plan.answer_text();
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
        "system_fingerprint": plan.config.system_fingerprint,
        "choices": [{"index": 0, "message": message, "logprobs": null, "finish_reason": plan.finish_reason()}],
        "usage": plan.usage(plan.reasoning_tokens + plan.output_tokens),
    }))
    .into_response()
}

/// `GET /metrics`: the engine's counters, as vLLM's Prometheus exposition.
pub(super) async fn metrics(State(state): State<SimState>) -> impl IntoResponse {
    ([(axum::http::header::CONTENT_TYPE, "text/plain; version=0.0.4")], state.engine.exposition())
}

/// `GET /version`: the version it says it runs, as vLLM's does.
pub(super) async fn version(State(state): State<SimState>) -> Json<Value> {
    Json(json!({"version": state.config.engine_version}))
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
