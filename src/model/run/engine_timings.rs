//! A server's own account of one request: llama.cpp puts a `timings` object in every non-streamed reply and in the
//! last chunk of a stream (`prompt_n`, `prompt_ms`, `predicted_n`, `predicted_ms`, and `draft_n`,
//! `draft_n_accepted` when it drafted). Kept beside the client's measurement, never instead of it: the client's
//! TTFT includes the network, queueing and the stream; the server's prompt time is prefill alone.

use serde::{Deserialize, Serialize};

/// What the server said it spent on one request.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EngineTimings {
    /// Prompt tokens the server evaluated (cached ones excluded).
    pub prompt_tokens: Option<u64>,
    /// Time the server spent evaluating the prompt (prefill), ms.
    pub prompt_ms: Option<f64>,
    /// Prompt tokens served from the server's cache.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cached_tokens: Option<u64>,
    /// Tokens the server generated.
    pub predicted_tokens: Option<u64>,
    /// Time the server spent generating, ms.
    pub predicted_ms: Option<f64>,
    /// Tokens the draft model proposed (llama.cpp sends `draft_n` only when it drafted: absent means 0).
    #[serde(default)]
    pub draft_tokens: u64,
    /// Proposed tokens the target model accepted.
    #[serde(default)]
    pub draft_accepted: u64,
}

impl EngineTimings {
    /// Reads llama.cpp's `timings` object; `None` when it is not an object or names none of its figures. Values
    /// that are negative, not finite or not numbers are dropped one by one, not trusted.
    pub fn from_llama_cpp(timings: &serde_json::Value) -> Option<Self> {
        let object = timings.as_object()?;
        let count = |key: &str| object.get(key).and_then(serde_json::Value::as_u64);
        let millis =
            |key: &str| object.get(key).and_then(serde_json::Value::as_f64).filter(|v| v.is_finite() && *v >= 0.0);
        let found = Self {
            prompt_tokens: count("prompt_n"),
            prompt_ms: millis("prompt_ms"),
            cached_tokens: count("cache_n"),
            predicted_tokens: count("predicted_n"),
            predicted_ms: millis("predicted_ms"),
            draft_tokens: count("draft_n").unwrap_or(0),
            draft_accepted: count("draft_n_accepted").unwrap_or(0),
        };
        let named_any = found.prompt_tokens.is_some()
            || found.prompt_ms.is_some()
            || found.predicted_tokens.is_some()
            || found.predicted_ms.is_some()
            || object.contains_key("draft_n");
        named_any.then_some(found)
    }
}

/// Per-response timings of a run added up.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EngineTimingTotals {
    /// Responses that carried timings.
    pub responses: u64,
    /// Σ drafted tokens.
    pub draft_tokens: u64,
    /// Σ accepted drafted tokens.
    pub draft_accepted: u64,
}

impl EngineTimingTotals {
    /// The totals of `timings`.
    pub fn of<'a>(timings: impl IntoIterator<Item = &'a EngineTimings>) -> Self {
        timings.into_iter().fold(Self::default(), |total, t| Self {
            responses: total.responses + 1,
            draft_tokens: total.draft_tokens + t.draft_tokens,
            draft_accepted: total.draft_accepted + t.draft_accepted,
        })
    }

    /// Accepted / drafted tokens; `None` when nothing was drafted (not 0 %: there was nothing to accept).
    pub fn acceptance_rate(&self) -> Option<f64> {
        (self.draft_tokens > 0).then(|| self.draft_accepted as f64 / self.draft_tokens as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn llama_cpp_timings_are_read_and_drafts_default_to_none_drafted() {
        let t = EngineTimings::from_llama_cpp(&json!({"cache_n": 804, "prompt_n": 4, "prompt_ms": 128.301,
            "prompt_per_token_ms": 32.07, "predicted_n": 665, "predicted_ms": 20629.211,
            "draft_n": 604, "draft_n_accepted": 515}))
        .unwrap();
        assert_eq!((t.prompt_tokens, t.cached_tokens, t.predicted_tokens), (Some(4), Some(804), Some(665)));
        assert_eq!((t.prompt_ms, t.predicted_ms), (Some(128.301), Some(20629.211)));
        assert_eq!((t.draft_tokens, t.draft_accepted), (604, 515));
        let plain = EngineTimings::from_llama_cpp(&json!({"prompt_n": 3, "prompt_ms": 1.5})).unwrap();
        assert_eq!((plain.draft_tokens, plain.draft_accepted, plain.predicted_ms), (0, 0, None));
    }

    #[test]
    fn foreign_or_hostile_timings_are_not_trusted() {
        assert_eq!(EngineTimings::from_llama_cpp(&json!("fast")), None);
        assert_eq!(EngineTimings::from_llama_cpp(&json!({"queue": 3})), None, "names none of llama.cpp's figures");
        let t = EngineTimings::from_llama_cpp(&json!({"prompt_n": -4, "prompt_ms": -1.0, "predicted_ms": "9"}));
        assert_eq!(t, None, "every figure was unusable");
    }

    #[test]
    fn totals_add_up_and_say_no_rate_without_drafts() {
        let t = |d, a| EngineTimings {
            prompt_tokens: None,
            prompt_ms: None,
            cached_tokens: None,
            predicted_tokens: None,
            predicted_ms: None,
            draft_tokens: d,
            draft_accepted: a,
        };
        let totals = EngineTimingTotals::of(&[t(10, 7), t(6, 1), t(0, 0)]);
        assert_eq!((totals.responses, totals.draft_tokens, totals.draft_accepted), (3, 16, 8));
        assert_eq!(totals.acceptance_rate(), Some(0.5));
        assert_eq!(EngineTimingTotals::of(&[t(0, 0)]).acceptance_rate(), None);
    }
}
