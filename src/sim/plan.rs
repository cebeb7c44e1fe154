//! One response's plan — what to send and when — and the pieces every response shape shares (token words,
//! usage, finish reason, the simulator's own timestamps).

use serde_json::{json, Value};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use tokio::time::Instant;

use super::config::{Fault, SimConfig};
use super::prefix_cache::PrefixCache;
use super::timing::DeadlineTimer;
use super::tokenizer;

/// The words the simulator "generates", one per token: none is over 3 letters, so with its space each is one token
/// of the simulator's tokenizer too, and an answer's text is as many tokens as its `usage` says.
const WORDS: &[&str] = &["lo", "rem", "ip", "sum", "do", "lor", "sit", "am"];

/// The text of output token `i`: one word, space-separated.
pub(super) fn token_text(i: u32) -> String {
    let word = WORDS[i as usize % WORDS.len()];
    if i == 0 {
        word.to_string()
    } else {
        format!(" {word}")
    }
}

/// Wall-clock unix microseconds: the simulator's own timestamps, comparable with a client's on the same machine.
pub(super) fn unix_micros() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| u64::try_from(d.as_micros()).unwrap_or(u64::MAX))
}

/// One response's plan: what to send and when.
pub(super) struct Plan {
    pub id: String,
    pub model: String,
    pub prompt_tokens: u32,
    /// Prompt tokens the prefix cache held.
    pub cached_tokens: u32,
    pub reasoning_tokens: u32,
    pub output_tokens: u32,
    pub capped: bool,
    pub received: Instant,
    /// Offset of the first output from `received`.
    pub ttft: Duration,
    pub fault: Option<Fault>,
    pub config: Arc<SimConfig>,
    /// The simulator's shared timer, which every delay waits on.
    pub timer: DeadlineTimer,
    /// Counts responses sent to their end.
    pub completed: Arc<std::sync::atomic::AtomicU64>,
    /// The prefix cache and the prompt's tokens: the prompt and its answer are kept once it is answered.
    pub kept: Option<(Arc<PrefixCache>, Vec<u32>)>,
    /// The engine's counters: a response sent to its end counts its tokens and drafts.
    pub engine: Arc<super::engine::EngineMetrics>,
    /// Counted as running (with its tokens in the KV cache) until it ends or its client goes.
    pub _running: super::engine::Running,
    /// The serving slot this response holds until it ends or its client goes (with `--slots`).
    pub _slot: Option<tokio::sync::OwnedSemaphorePermit>,
}

impl Plan {
    /// The response was sent to its end: counted, and its prompt and answer kept in the prefix cache (the answer as
    /// a conversation's next turn sends it back: its content, without reasoning).
    pub fn count_completed(&mut self) {
        self.completed.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.engine.completed(u64::from(self.reasoning_tokens + self.output_tokens));
        if let Some((cache, prompt)) = self.kept.take() {
            cache.keep(&tokenizer::with_answer(prompt, &self.answer_text()));
        }
    }

    /// The answer's content.
    pub fn answer_text(&self) -> String {
        (0..self.output_tokens).map(token_text).collect()
    }
}

impl Plan {
    pub fn usage(&self, completion_tokens: u32) -> Value {
        json!({
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": self.prompt_tokens + completion_tokens,
            "prompt_tokens_details": {"cached_tokens": self.cached_tokens},
        })
    }

    pub fn finish_reason(&self) -> &'static str {
        if self.capped {
            "length"
        } else {
            "stop"
        }
    }
}
