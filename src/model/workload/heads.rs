//! Prompt heads: a short mark at the start of every prompt, unique to its run, so that no run measures what an
//! earlier one left in the server's prefix cache. The same seed makes the same prompts (that is what makes two runs
//! comparable), and servers cache prompt prefixes by default (llama.cpp's slots, vLLM's automatic prefix caching):
//! without a mark, a second run of the same plan finds nearly every prompt cached and measures a cached prefill.
//!
//! What a mark covers follows what the workload shares on purpose: requests that share nothing get one each; a
//! shared-prefix workload's or a trace's requests share their run's mark (so they still share their prefix with
//! one another, and only with one another); a conversation's turns share their conversation's. A mark is counted in
//! its prompt's length: a prompt of an exact length is that length with its mark.

use serde::{Deserialize, Serialize};

use super::spec::Workload;

/// Whether a run's prompts start with marks of their own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum PromptHeads {
    /// Every prompt starts with a mark unique to its run (and its request, unless the workload shares its prompts'
    /// starts on purpose): the default for every run, repetition, sweep level, A/B round and Guard evaluation.
    #[default]
    Unique,
    /// Prompts as the workload makes them: a run may find an earlier run's prompts in the server's prefix cache (a
    /// cache-warm measurement, asked for on purpose). Runs stored before marks existed read as this.
    Off,
}

impl PromptHeads {
    /// What a plan stored before this setting existed was sent with.
    pub fn stored_before_heads() -> Self {
        Self::Off
    }

    /// Whether prompts get marks.
    pub fn unique(self) -> bool {
        self == Self::Unique
    }
}

/// What one mark is unique to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeadScope {
    /// One request (the workload shares nothing on purpose).
    Request(u32),
    /// One conversation, by the index of its first turn: its later turns carry it in the conversation sent back.
    Conversation(u32),
    /// The whole run: its requests share their prompts' starts on purpose.
    Run,
}

/// Where request `index` of `workload` (none: the plan's own prompts) gets its mark, if it gets one: a later turn of a
/// conversation gets none of its own.
pub fn head_scope(workload: Option<&Workload>, index: u32) -> Option<HeadScope> {
    match workload {
        None => Some(HeadScope::Request(index)),
        Some(Workload::Synthetic { .. } | Workload::Dataset { .. }) => Some(HeadScope::Request(index)),
        Some(Workload::SharedPrefix { .. } | Workload::Trace { .. }) => Some(HeadScope::Run),
        Some(workload @ Workload::MultiTurn { .. }) => {
            (workload.turn_of(index) == 0).then_some(HeadScope::Conversation(index))
        }
    }
}

/// The mark of `scope` in the run marked `run_mark` (a few random letters and digits drawn when the run starts):
/// `[k3x9q2-0000017]` for request or conversation 17, `[k3x9q2]` for the run. The number has a fixed width so
/// that every mark of a run counts the same tokens with most tokenizers (a prompt's cut is placed from the first
/// mark's count and corrected when a mark counts otherwise).
pub fn head_text(run_mark: &str, scope: HeadScope) -> String {
    match scope {
        HeadScope::Request(index) | HeadScope::Conversation(index) => format!("[{run_mark}-{index:07}]"),
        HeadScope::Run => format!("[{run_mark}]"),
    }
}

/// `prompt`, one of a plan's own prompts, as send `send` of the run marked `run_mark` sends it: after a mark of that
/// send's own, so a prompt sent again is not found in the cache its last send left; as it is without a mark.
pub fn marked_prompt(run_mark: Option<&str>, send: u64, prompt: &str) -> String {
    match (run_mark, head_scope(None, u32::try_from(send).unwrap_or(u32::MAX))) {
        (Some(mark), Some(scope)) => format!("{} {prompt}", head_text(mark, scope)),
        _ => prompt.to_string(),
    }
}

/// Letters and digits a run's mark is drawn from.
const MARK_ALPHABET: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789";
/// Characters in a run's mark: 36⁶ ≈ 2.2 billion marks, so two runs of one server share one by chance about once in
/// a billion pairs.
pub const RUN_MARK_LEN: usize = 6;

/// A run's mark made from `random` (one draw of a random number generator).
pub fn run_mark(mut random: u64) -> String {
    (0..RUN_MARK_LEN)
        .map(|_| {
            let letter = MARK_ALPHABET[(random % MARK_ALPHABET.len() as u64) as usize];
            random /= MARK_ALPHABET.len() as u64;
            char::from(letter)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::LengthDist;

    fn synthetic() -> Workload {
        Workload::Synthetic { input: LengthDist::fixed(10), output: LengthDist::fixed(1), requests: 4, seed: 1 }
    }

    fn shared_prefix() -> Workload {
        let (suffix, output) = (LengthDist::fixed(10), LengthDist::fixed(1));
        Workload::SharedPrefix { groups: 2, prefix_tokens: 100, suffix, output, requests: 4, seed: 1 }
    }

    fn conversations_of_three_turns() -> Workload {
        let (first, follow_up, output) = (LengthDist::fixed(10), LengthDist::fixed(5), LengthDist::fixed(1));
        Workload::MultiTurn { users: 2, turns: 3, first, follow_up, output, think: Default::default(), seed: 1 }
    }

    #[test]
    fn what_a_mark_covers_follows_what_the_workload_shares() {
        let rows = [
            (None, 3, Some(HeadScope::Request(3))),
            (Some(synthetic()), 3, Some(HeadScope::Request(3))),
            (Some(shared_prefix()), 3, Some(HeadScope::Run)),
            (Some(conversations_of_three_turns()), 3, Some(HeadScope::Conversation(3))),
            (Some(conversations_of_three_turns()), 4, None),
            (Some(conversations_of_three_turns()), 5, None),
        ];
        for (workload, index, scope) in rows {
            assert_eq!(head_scope(workload.as_ref(), index), scope, "{workload:?} request {index}");
        }
    }

    #[test]
    fn marks_differ_by_run_and_by_request() {
        let (a, b) = (run_mark(7), run_mark(8));
        assert_eq!(a.len(), RUN_MARK_LEN);
        assert_ne!(a, b);
        assert!(a.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit()), "{a}");
        assert_eq!(head_text("k3x9q2", HeadScope::Request(17)), "[k3x9q2-0000017]");
        assert_eq!(head_text("k3x9q2", HeadScope::Conversation(17)), "[k3x9q2-0000017]");
        assert_eq!(head_text("k3x9q2", HeadScope::Run), "[k3x9q2]");
    }

    #[test]
    fn plans_stored_before_marks_read_as_sent_without_them() {
        assert_eq!(PromptHeads::default(), PromptHeads::Unique);
        assert_eq!(PromptHeads::stored_before_heads(), PromptHeads::Off);
        assert_eq!(serde_json::to_string(&PromptHeads::Off).unwrap(), "\"off\"");
    }
}
