//! One measured call against a stored connector, with the `stream_options` fallback.

use std::time::Duration;

use crate::engine::{measure_dropping_rejected_stream_options, ChatMessage, ChatRequest, HttpClient, StreamOptions};
use crate::model::{ConnectorId, Measurement, ValidationError, WorkspaceId};
use crate::secrets::SecretBox;
use crate::store::{Store, StoreError};
use crate::targets::open_target;

/// What to measure.
#[derive(Debug, Clone)]
pub struct OnceInput {
    /// The connector.
    pub connector_id: ConnectorId,
    /// The user prompt.
    pub prompt: String,
    /// Output budget, 1..=8192.
    pub max_tokens: u32,
    /// Stream (TTFT measurable) or not.
    pub stream: bool,
}

/// Why the call could not be made (a failed call is a measurement with an error, not this).
#[derive(Debug, thiserror::Error)]
pub enum OnceError {
    /// Bad input.
    #[error("{0}")]
    Invalid(#[from] ValidationError),
    /// The connector could not be read.
    #[error("{0}")]
    Store(#[from] StoreError),
}

/// Validated bounds of `maxTokens`.
pub const MAX_TOKENS_RANGE: std::ops::RangeInclusive<u32> = 1..=8192;

/// Loads the connector's URL, key, model and headers server-side and measures one call.
pub async fn run_once(
    store: &Store,
    sealer: &SecretBox,
    client: &HttpClient,
    workspace: WorkspaceId,
    input: OnceInput,
    timeout: Duration,
) -> Result<Measurement, OnceError> {
    crate::model::prompt_text(&input.prompt, "prompt", crate::model::limits::MAX_PROMPT_CHARS)?;
    if !MAX_TOKENS_RANGE.contains(&input.max_tokens) {
        return Err(
            ValidationError::new("maxTokens", format!("must be between 1 and 8192, got {}", input.max_tokens)).into()
        );
    }
    let (connector, target) = open_target(store, sealer, client.addresses(), workspace, input.connector_id).await?;
    crate::targets::refuse_unreachable(client, &target, "connectorId").await?;
    let mut request = ChatRequest {
        model: connector.model,
        messages: vec![ChatMessage { role: "user", content: input.prompt }],
        tools: vec![],
        max_tokens: input.max_tokens,
        temperature: 0.0,
        stream: input.stream,
        stream_options: input.stream.then_some(StreamOptions { include_usage: true }),
        ignore_eos: false,
        keep_answer: false,
    };
    let intended = tokio::time::Instant::now();
    Ok(measure_dropping_rejected_stream_options(client, &target, &mut request, timeout, intended).await)
}
