//! `POST /tokenize` and `POST /detokenize` with the simulator's own tokenizer, in the words of the servers a
//! workload asks for exact lengths: llama.cpp's (`content` in; `tokens`, or with `with_pieces` each token's `id` and
//! `piece`, out) and vLLM's (`prompt` in, `count` out; `messages` are tokenized with the chat template and the
//! answer's start, as vLLM's `add_generation_prompt` does). Detokenizing answers with both servers' keys.

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Deserialize;
use serde_json::json;

use super::completion::{bad_body, error, prompt_tokens, refusal, Message, SimState};
use super::tokenizer;

#[derive(Deserialize)]
struct TokenizeRequest {
    /// llama.cpp's field.
    #[serde(default)]
    content: Option<String>,
    /// vLLM's field for a completion prompt.
    #[serde(default)]
    prompt: Option<String>,
    /// vLLM's field for a chat: tokenized as the chat template sends it.
    #[serde(default)]
    messages: Option<Vec<Message>>,
    /// llama.cpp: each token with its text.
    #[serde(default)]
    with_pieces: bool,
}

#[derive(Deserialize)]
struct DetokenizeRequest {
    tokens: Vec<u32>,
}

pub(super) async fn tokenize(State(state): State<SimState>, headers: HeaderMap, body: Bytes) -> Response {
    if let Some(refused) = refusal(&state.config, &headers) {
        return refused;
    }
    let request: TokenizeRequest = match serde_json::from_slice(&body) {
        Ok(request) => request,
        Err(e) => return bad_body(&e),
    };
    let text = request.content.or(request.prompt);
    let tokens = match (&text, &request.messages) {
        (Some(text), None) => tokenizer::tokenize(text),
        (None, Some(messages)) => prompt_tokens(messages),
        _ => {
            let message = "send one of content, prompt or messages";
            return error(StatusCode::BAD_REQUEST, "invalid_request_error", message);
        }
    };
    let count = tokens.len();
    match text.filter(|_| request.with_pieces) {
        Some(text) => {
            let pieces: Vec<_> =
                tokenizer::pieces(&text).zip(tokens).map(|(piece, id)| json!({"id": id, "piece": piece})).collect();
            Json(json!({"tokens": pieces, "count": count})).into_response()
        }
        None => Json(json!({"tokens": tokens, "count": count})).into_response(),
    }
}

pub(super) async fn detokenize(State(state): State<SimState>, headers: HeaderMap, body: Bytes) -> Response {
    if let Some(refused) = refusal(&state.config, &headers) {
        return refused;
    }
    let request: DetokenizeRequest = match serde_json::from_slice(&body) {
        Ok(request) => request,
        Err(e) => return bad_body(&e),
    };
    match tokenizer::detokenize(&request.tokens) {
        Ok(text) => Json(json!({"content": text, "prompt": text})).into_response(),
        Err(unknown) => error(StatusCode::BAD_REQUEST, "invalid_request_error", &unknown.to_string()),
    }
}
