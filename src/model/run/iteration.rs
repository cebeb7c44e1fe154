//! One iteration of a run as reports, exports and the live view show it: the fields the report schema
//! (`docs/report-snapshot.schema.json`) names (`prompt`, zero-based `iteration`, `ttftMs`, `totalMs`,
//! `tokensIn`, `tokensOut`, `costUsd`, `error`) and, beside them,
//! what a reader needs to judge them.

use serde::{Deserialize, Serialize};

use crate::model::{Measurement, RetryCause, TokenSource};

/// One measured (or warm-up) request of a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct IterationRecord {
    /// The prompt text; a prompt over [`ROW_PROMPT_CHARS`] characters is shortened (see [`row_prompt`]).
    pub prompt: String,
    /// Zero-based iteration of this prompt.
    pub iteration: u32,
    /// Send → first non-empty `choices[0].delta.content`, ms; `null` when not streamed or no content came.
    pub ttft_ms: Option<f64>,
    /// Send → end of response, ms.
    pub total_ms: f64,
    /// Input tokens (see `tokenSource`).
    pub tokens_in: Option<u64>,
    /// Output tokens (see `tokenSource`).
    pub tokens_out: Option<u64>,
    /// tokensIn × input price + tokensOut × output price; `null` when the connector has no prices.
    pub cost_usd: Option<f64>,
    /// `code: detail` of a failure, `null` when it succeeded.
    pub error: Option<String>,
    /// Position in the run's send order.
    pub seq: u64,
    /// Index of the prompt in the plan.
    pub prompt_index: u32,
    /// A warm-up request, excluded from statistics.
    pub warmup: bool,
    /// Reported by the server or estimated.
    pub token_source: TokenSource,
    /// How late the request was sent behind the instant it was due, ms: its schedule's instant in an open loop, the
    /// instant its slot came free in a closed loop (there usually microseconds).
    pub schedule_lag_ms: f64,
    /// Earlier attempts rate-limited (HTTP 429) and retried before this result.
    #[serde(default)]
    pub retries: u32,
    /// Earlier attempts lost because the server closed a reused connection before answering, each re-sent once on
    /// a fresh connection; the latency is the re-sent request's.
    #[serde(default)]
    pub reconnects: u32,
    /// Send → first output of any kind (reasoning or answer), ms; the same as `ttftMs` unless a reasoning model
    /// reasoned first. `null` when not streamed.
    #[serde(default)]
    pub first_output_ms: Option<f64>,
    /// Time per output token after the first, ms: (last output − first output) / (tokensOut − 1); `null` when not
    /// streamed or with fewer than 2 output tokens.
    #[serde(default)]
    pub tpot_ms: Option<f64>,
    /// Mean per-token inter-token latency of this request, ms: each gap between output chunks divided by the tokens
    /// the later chunk carried, averaged over tokens.
    #[serde(default)]
    pub itl_ms: Option<f64>,
    /// The longest per-token gap of this request, ms (a stall mid-answer).
    #[serde(default)]
    pub max_itl_ms: Option<f64>,
    /// When it was sent, ms after the run started; `null` for iterations recorded before this version.
    #[serde(default)]
    pub sent_at_ms: Option<f64>,
    /// Whether the request was good under the run's objectives (succeeded and met every per-request one); absent
    /// when the run has none. Set when the report is made, not stored.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub good: Option<bool>,
    /// Every per-token gap of this request, kept as a log histogram for the run's pooled ITL percentiles; stored
    /// with the iteration, never sent or exported.
    #[serde(skip)]
    pub itl_gaps: Option<crate::model::LogHistogram>,
    /// The server's own timings of this request (llama.cpp's `timings`: prefill and generation time, drafted
    /// and accepted tokens), absent when the reply carried none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub engine_timings: Option<crate::model::EngineTimings>,
    /// Prompt tokens the server said it served from its prefix cache (`usage.prompt_tokens_details.cached_tokens`,
    /// else llama.cpp's `timings.cache_n`); absent when it said neither.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cached_tokens: Option<u64>,
    /// The endpoint's own time from having the request to sending its first output, ms, as the endpoint reported it
    /// (latency-guard's simulator does: `x-sim-received-us` and the first chunk's `sim_us`, both on its clock);
    /// absent from real endpoints. `firstOutputMs` minus this is what the client and the network added.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_first_output_ms: Option<f64>,
    /// With a workload: the prompt's length as drawn, tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub asked_input_tokens: Option<u32>,
    /// With a workload: the prompt's length as the tokenizer counted the text made for it (the asked length,
    /// unless no cut of the text gave it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub made_input_tokens: Option<u32>,
    /// With a workload: the answer's length asked (`max_tokens`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub asked_output_tokens: Option<u32>,
}

/// Characters of a prompt an iteration's row carries: rows are repeated per iteration (reports, tables, exports),
/// so a long prompt is shortened there; the run's settings hold it whole.
pub const ROW_PROMPT_CHARS: usize = 1_000;

/// The prompt as a row shows it: whole up to [`ROW_PROMPT_CHARS`] characters, else their first part and a
/// marker saying how much was left out.
pub fn row_prompt(prompt: &str) -> String {
    match prompt.char_indices().nth(ROW_PROMPT_CHARS) {
        None => prompt.to_string(),
        Some((cut, _)) => {
            let rest = prompt[cut..].chars().count();
            format!("{}… [+{rest} characters]", &prompt[..cut])
        }
    }
}

/// Cost of one request in USD from prices per 1M tokens; `None` when neither price is set (a missing one of the
/// two counts as free, and the report says so).
pub fn cost_usd(
    tokens_in: Option<u64>,
    tokens_out: Option<u64>,
    input_price: Option<f64>,
    output_price: Option<f64>,
) -> Option<f64> {
    if input_price.is_none() && output_price.is_none() {
        return None;
    }
    let part = |tokens: Option<u64>, price: Option<f64>| tokens.unwrap_or(0) as f64 * price.unwrap_or(0.0) / 1e6;
    Some(part(tokens_in, input_price) + part(tokens_out, output_price))
}

impl IterationRecord {
    /// The record of a measurement.
    pub fn from_measurement(
        prompt: &str,
        job: crate::model::Job,
        m: &Measurement,
        input_price: Option<f64>,
        output_price: Option<f64>,
    ) -> Self {
        Self {
            prompt: row_prompt(prompt),
            iteration: job.iteration,
            ttft_ms: m.ttft_ms(),
            total_ms: m.total_ms(),
            tokens_in: m.tokens_in,
            tokens_out: m.tokens_out,
            cost_usd: cost_usd(m.tokens_in, m.tokens_out, input_price, output_price),
            error: m.error.as_ref().map(|e| format!("{}: {}", e.code, e.detail)),
            seq: job.seq,
            prompt_index: job.prompt_index,
            warmup: job.warmup,
            token_source: m.token_source,
            schedule_lag_ms: m.timeline.schedule_lag_us as f64 / 1_000.0,
            retries: m.retried.iter().filter(|a| a.cause == RetryCause::RateLimited).count() as u32,
            reconnects: m.retried.iter().filter(|a| a.cause == RetryCause::ClosedConnection).count() as u32,
            engine_timings: m.engine_timings,
            first_output_ms: m.time_to_first_output_ms(),
            sent_at_ms: m.timeline.sent_offset_us.map(|us| us as f64 / 1_000.0),
            tpot_ms: m.tpot_ms(),
            cached_tokens: m.cached_tokens,
            server_first_output_ms: m.server_timing.and_then(|t| t.time_to_first_output_ms()),
            ..Self::inter_token(&m.per_token_itl_ms())
        }
    }

    /// A record with only the inter-token fields set from per-token `gaps` (the rest for `from_measurement`).
    fn inter_token(gaps: &[f64]) -> Self {
        let mut histogram = crate::model::LogHistogram::default();
        gaps.iter().for_each(|g| histogram.add(*g));
        let mean = (!gaps.is_empty()).then(|| gaps.iter().sum::<f64>() / gaps.len() as f64);
        Self {
            itl_ms: mean,
            max_itl_ms: gaps.iter().copied().reduce(f64::max),
            itl_gaps: (!gaps.is_empty()).then_some(histogram),
            ..Self::blank()
        }
    }

    /// An empty record: a base for building one field by field (tests, fixtures).
    pub fn blank() -> Self {
        Self {
            prompt: String::new(),
            iteration: 0,
            ttft_ms: None,
            total_ms: 0.0,
            tokens_in: None,
            tokens_out: None,
            cost_usd: None,
            error: None,
            seq: 0,
            prompt_index: 0,
            warmup: false,
            token_source: TokenSource::Estimated,
            schedule_lag_ms: 0.0,
            retries: 0,
            reconnects: 0,
            first_output_ms: None,
            tpot_ms: None,
            itl_ms: None,
            max_itl_ms: None,
            itl_gaps: None,
            sent_at_ms: None,
            good: None,
            engine_timings: None,
            cached_tokens: None,
            server_first_output_ms: None,
            asked_input_tokens: None,
            made_input_tokens: None,
            asked_output_tokens: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_prompts_are_shortened_in_rows_with_what_was_left_out() {
        assert_eq!(row_prompt("short"), "short");
        let exact = "é".repeat(ROW_PROMPT_CHARS);
        assert_eq!(row_prompt(&exact), exact);
        let long = format!("{}{}", "a".repeat(ROW_PROMPT_CHARS), "b".repeat(1_500));
        assert_eq!(row_prompt(&long), format!("{}… [+1500 characters]", "a".repeat(ROW_PROMPT_CHARS)));
    }

    #[test]
    fn cost_uses_prices_per_million_tokens_and_is_null_without_prices() {
        assert_eq!(cost_usd(Some(1_000), Some(500), None, None), None);
        let c = cost_usd(Some(1_000), Some(500), Some(0.15), Some(0.6)).unwrap();
        assert!((c - (1_000.0 * 0.15 + 500.0 * 0.6) / 1e6).abs() < 1e-15);
        assert_eq!(cost_usd(Some(1_000_000), Some(7), Some(2.0), None), Some(2.0));
    }
}
