//! The `/v1/chat/completions` handler: JSON or SSE in the OpenAI wire format.

use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use bytes::Bytes;
use serde::Deserialize;
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};
use tokio::time::Instant;

use super::timing::sleep_until_precise;
use super::SimConfig;

/// The words the simulator "generates", one per token.
const WORDS: &[&str] = &["lorem", "ipsum", "dolor", "sit", "amet", "consectetur", "adipiscing", "elit"];

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

fn error(status: StatusCode, kind: &str, message: &str) -> Response {
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

fn token_text(i: u32) -> String {
    let word = WORDS[i as usize % WORDS.len()];
    if i == 0 {
        word.to_string()
    } else {
        format!(" {word}")
    }
}

fn unix_seconds() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

pub(super) async fn models() -> Json<Value> {
    Json(json!({"object": "list", "data": [{"id": "sim-model", "object": "model", "owned_by": "latency-guard"}]}))
}

pub(super) async fn chat_completions(
    State(config): State<Arc<SimConfig>>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let received = Instant::now();
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
    let cap = request.max_completion_tokens.or(request.max_tokens).unwrap_or(u32::MAX);
    let plan = Plan {
        id: format!("chatcmpl-sim-{:x}", rand::random::<u64>()),
        model: request.model.clone(),
        prompt_tokens: prompt_tokens(&request.messages),
        output_tokens: config.tokens.min(cap).max(1),
        received,
        config: Arc::clone(&config),
    };
    if request.stream {
        let include_usage = request.stream_options.is_some_and(|o| o.include_usage);
        stream_response(plan, include_usage)
    } else {
        let last = plan.token_deadline(plan.output_tokens - 1);
        sleep_until_precise(last).await;
        Json(plan.completion()).into_response()
    }
}

struct Plan {
    id: String,
    model: String,
    prompt_tokens: u32,
    output_tokens: u32,
    received: Instant,
    config: Arc<SimConfig>,
}

impl Plan {
    /// When token `i` (zero-based) is due: TTFT for the first, then one inter-token delay each.
    fn token_deadline(&self, i: u32) -> Instant {
        self.received + self.config.ttft + self.config.itl * i
    }

    fn usage(&self) -> Value {
        json!({
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.output_tokens,
            "total_tokens": self.prompt_tokens + self.output_tokens,
        })
    }

    fn completion(&self) -> Value {
        let content: String = (0..self.output_tokens).map(token_text).collect();
        json!({
            "id": self.id,
            "object": "chat.completion",
            "created": unix_seconds(),
            "model": self.model,
            "system_fingerprint": "latency-guard-sim",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "logprobs": null,
                         "finish_reason": if self.output_tokens < self.config.tokens { "length" } else { "stop" }}],
            "usage": self.usage(),
        })
    }

    fn chunk(&self, delta: Value, finish_reason: Option<&str>, include_usage: bool) -> Bytes {
        let mut chunk = json!({
            "id": self.id,
            "object": "chat.completion.chunk",
            "created": unix_seconds(),
            "model": self.model,
            "choices": [{"index": 0, "delta": delta, "logprobs": null, "finish_reason": finish_reason}],
        });
        if include_usage {
            chunk["usage"] = Value::Null;
        }
        Bytes::from(format!("data: {chunk}\n\n"))
    }
}

/// Where a stream is: role chunk, content tokens, finish, usage, `[DONE]`.
enum Step {
    Role,
    Token(u32),
    Finish,
    Usage,
    Done,
    End,
}

fn stream_response(plan: Plan, include_usage: bool) -> Response {
    let stream = futures::stream::unfold((plan, Step::Role), move |(plan, step)| async move {
        let (bytes, next) = match step {
            Step::Role => {
                (plan.chunk(json!({"role": "assistant", "content": ""}), None, include_usage), Step::Token(0))
            }
            Step::Token(i) => {
                sleep_until_precise(plan.token_deadline(i)).await;
                let next = if i + 1 < plan.output_tokens { Step::Token(i + 1) } else { Step::Finish };
                (plan.chunk(json!({"content": token_text(i)}), None, include_usage), next)
            }
            Step::Finish => {
                let reason = if plan.output_tokens < plan.config.tokens { "length" } else { "stop" };
                let next = if include_usage { Step::Usage } else { Step::Done };
                (plan.chunk(json!({}), Some(reason), include_usage), next)
            }
            Step::Usage => {
                let chunk = json!({"id": plan.id, "object": "chat.completion.chunk", "created": unix_seconds(),
                                   "model": plan.model, "choices": [], "usage": plan.usage()});
                (Bytes::from(format!("data: {chunk}\n\n")), Step::Done)
            }
            Step::Done => (Bytes::from_static(b"data: [DONE]\n\n"), Step::End),
            Step::End => return None,
        };
        Some((Ok::<_, std::convert::Infallible>(bytes), (plan, next)))
    });
    Response::builder()
        .header("content-type", "text/event-stream")
        .header("cache-control", "no-cache")
        .body(Body::from_stream(stream))
        .unwrap_or_else(|_| StatusCode::INTERNAL_SERVER_ERROR.into_response())
}
