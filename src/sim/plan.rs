//! One response's plan — what to send and when — and the pieces every response shape shares (token words,
//! usage, finish reason, the simulator's own timestamps).

use serde_json::{json, Value};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use tokio::time::Instant;

use super::config::{Fault, SimConfig};
use super::timing::DeadlineTimer;

/// The words the simulator "generates", one per token.
const WORDS: &[&str] = &["lorem", "ipsum", "dolor", "sit", "amet", "consectetur", "adipiscing", "elit"];

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
    /// The serving slot this response holds until it ends or its client goes (with `--slots`).
    pub _slot: Option<tokio::sync::OwnedSemaphorePermit>,
}

impl Plan {
    /// The response was sent to its end.
    pub fn count_completed(&self) {
        self.completed.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }
}

impl Plan {
    pub fn usage(&self, completion_tokens: u32) -> Value {
        json!({
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": self.prompt_tokens + completion_tokens,
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
