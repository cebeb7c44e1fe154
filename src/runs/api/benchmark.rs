//! `runBenchmarkOnce`: one measured call against a stored connector.

use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use crate::error::AppError;
use crate::model::{Checked, ConnectorId, TokenSource};
use crate::wire::Json;

#[cfg(feature = "ssr")]
use crate::api::context::with_session;
#[cfg(feature = "ssr")]
use crate::runs::service::OnceError;

#[cfg(feature = "ssr")]
crate::api::context::invalid_or_store!(OnceError);

/// The input of `runBenchmarkOnce`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BenchmarkOnceInput {
    /// The stored connector to call.
    pub connector_id: ConnectorId,
    /// The user prompt.
    pub prompt: String,
    /// Output budget, 1..=8192 (default 512).
    #[serde(default)]
    pub max_tokens: Option<u32>,
    /// Stream (default true); TTFT is measurable only when streaming.
    #[serde(default)]
    pub stream: Option<bool>,
}

/// What one measured call gave.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BenchmarkOnceResult {
    /// Send → first non-empty `choices[0].delta.content`, ms; `null` when not streamed or no content came.
    pub ttft_ms: Option<f64>,
    /// Send → end of response, ms.
    pub total_ms: f64,
    /// Input tokens.
    pub tokens_in: Option<u64>,
    /// Output tokens.
    pub tokens_out: Option<u64>,
    /// Whether the token counts were reported by the server or estimated (characters / 4).
    pub token_source: TokenSource,
    /// HTTP status, if a response came.
    pub status: Option<u16>,
    /// `code: detail` of the failure, `null` when it succeeded.
    pub error: Option<String>,
}

/// `POST /api/benchmark/once`, `{"input": {connectorId, prompt, maxTokens?, stream?}}`.
#[server(prefix = "/api", endpoint = "benchmark/once", input = Json, output = Json)]
pub async fn run_benchmark_once(input: Checked<BenchmarkOnceInput>) -> Result<BenchmarkOnceResult, AppError> {
    with_session(|state, session| async move {
        let (once, timeout) = (input.0.into(), state.settings.request_timeout);
        let m = crate::runs::service::run_once(
            &state.store,
            &state.sealer,
            &state.http,
            session.workspace_id,
            once,
            timeout,
        );
        Ok(m.await?.into())
    })
    .await
}

#[cfg(feature = "ssr")]
impl From<BenchmarkOnceInput> for crate::runs::service::OnceInput {
    fn from(input: BenchmarkOnceInput) -> Self {
        Self {
            connector_id: input.connector_id,
            prompt: input.prompt,
            max_tokens: input.max_tokens.unwrap_or(512),
            stream: input.stream.unwrap_or(true),
        }
    }
}

impl From<crate::model::Measurement> for BenchmarkOnceResult {
    fn from(m: crate::model::Measurement) -> Self {
        Self {
            ttft_ms: m.ttft_ms(),
            total_ms: m.total_ms(),
            tokens_in: m.tokens_in,
            tokens_out: m.tokens_out,
            token_source: m.token_source,
            status: m.status,
            error: m.error.map(|e| format!("{}: {}", e.code, e.detail)),
        }
    }
}
