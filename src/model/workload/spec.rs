//! What a workload asks a run to send, as a user states it (the API, the browser's form, a `--workload` file)
//! and as it is kept in the run's plan and report: every parameter, so a report can be read, and the run repeated,
//! without anything else.

use serde::{Deserialize, Serialize};

use super::files::{DatasetFormat, TraceFormat, WorkloadFile};
use super::lengths::{workload_limits, LengthDist};
use super::think::ThinkTime;
use crate::model::ValidationError;

/// A workload.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase", deny_unknown_fields)]
pub enum Workload {
    /// Prompts of drawn token lengths, cut from the built-in corpus by the server's own tokenizer, each asking for
    /// an answer of a drawn length: "input 1,000 / output 200".
    #[serde(rename_all = "camelCase")]
    Synthetic {
        /// Each prompt's length, tokens.
        input: LengthDist,
        /// Each answer's length, tokens (sent as `max_tokens`, with `ignore_eos` where the server takes it).
        output: LengthDist,
        /// Requests sent, each with a prompt of its own.
        requests: u32,
        /// Seeds the lengths and the text: the same seed sends the same prompts.
        #[serde(default)]
        seed: u64,
    },
    /// `groups` groups of requests, each sharing a prefix of `prefixTokens` tokens (the same text), then a suffix of
    /// its own: how prefix caching and prefix-aware routing are tested. Request `i` is in group `i mod groups`.
    #[serde(rename_all = "camelCase")]
    SharedPrefix {
        /// Groups, each with a prefix of its own.
        groups: u32,
        /// Tokens of each group's prefix.
        prefix_tokens: u32,
        /// Each request's own part after the prefix, tokens.
        suffix: LengthDist,
        /// Each answer's length, tokens.
        output: LengthDist,
        /// Requests sent.
        requests: u32,
        /// Seeds the lengths and the text.
        #[serde(default)]
        seed: u64,
    },
    /// `users` conversations of `turns` turns each. Every turn sends the conversation so far (each earlier user
    /// message, and each earlier answer as the server returned it) and a new user message, after its user's think
    /// time; a closed loop's concurrency is conversations in flight, an open loop's rate is new conversations per
    /// second. Request `session × turns + turn` is that turn of that conversation.
    #[serde(rename_all = "camelCase")]
    MultiTurn {
        /// Conversations.
        users: u32,
        /// Turns of each conversation.
        turns: u32,
        /// The first user message of each conversation, tokens.
        first: LengthDist,
        /// Each later user message, tokens.
        follow_up: LengthDist,
        /// Each answer's length, tokens.
        output: LengthDist,
        /// The pause between an answer and the next turn.
        #[serde(default)]
        think: ThinkTime,
        /// Seeds the lengths, the text and the think times.
        #[serde(default)]
        seed: u64,
    },
    /// Prompts read from a dataset file, row by row in the file's order: the warm-ups send its first rows, the
    /// requests the rows after them. A row is `{"prompt": …}`, `{"messages": […]}` or ShareGPT's
    /// `{"conversations": […]}` (sent up to its first human message), with an optional `output_tokens`.
    #[serde(rename_all = "camelCase")]
    Dataset {
        /// The file.
        file: WorkloadFile<DatasetFormat>,
        /// Requests sent.
        requests: u32,
        /// The answer length of a row that gives none (`max_tokens`, with `ignore_eos`); absent, such a row asks
        /// for the agent's token budget and the server may stop sooner.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        output: Option<LengthDist>,
        /// Seeds the lengths drawn from `output`.
        #[serde(default)]
        seed: u64,
        /// A row that gives no `output_tokens` but has a recorded answer (a ShareGPT conversation's model turn after
        /// the human turn sent) asks that answer's length, counted with the server's tokenizer, as `vllm bench` and
        /// AIPerf do; a row with neither falls back to `output`.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        recorded_outputs: bool,
    },
    /// Requests sent at the instants a trace recorded (divided by `speedup`), each a prompt of its recorded length
    /// asking for its recorded answer length. A Mooncake trace's `hash_ids` become the prompt's blocks of
    /// `blockTokens` tokens, the same text wherever the same id comes, so the trace's prefix sharing is sent as
    /// recorded.
    #[serde(rename_all = "camelCase")]
    Trace {
        /// The file.
        file: WorkloadFile<TraceFormat>,
        /// Requests sent: the trace's first rows.
        requests: u32,
        /// How many times faster than recorded (2: at twice the rate).
        #[serde(default = "unhurried")]
        speedup: f64,
        /// Tokens of one hash block (Mooncake's traces: 512).
        #[serde(default = "mooncake_block_tokens")]
        block_tokens: u32,
        /// Seeds the text.
        #[serde(default)]
        seed: u64,
    },
}

fn unhurried() -> f64 {
    1.0
}

fn mooncake_block_tokens() -> u32 {
    512
}

/// The fastest a trace may be sped up, and the slowest it may be slowed down.
pub const MAX_SPEEDUP: f64 = 1_000.0;
/// The slowest a trace may be replayed: a thousand times slower than recorded.
pub const MIN_SPEEDUP: f64 = 0.001;

impl Workload {
    /// Refuses what no run could send, naming the field under `workload.`.
    pub fn validate(&self) -> Result<(), ValidationError> {
        use workload_limits::*;
        match self {
            Self::Synthetic { input, output, .. } => {
                input.validate("workload.input", MAX_INPUT_TOKENS)?;
                output.validate("workload.output", MAX_OUTPUT_TOKENS)?;
            }
            Self::SharedPrefix { groups, prefix_tokens, suffix, output, .. } => {
                if !(1..=MAX_GROUPS).contains(groups) {
                    return Err(ValidationError::new("workload.groups", format!("must be between 1 and {MAX_GROUPS}")));
                }
                // The suffix is at least one token, and the whole prompt at most the longest.
                if !(1..MAX_INPUT_TOKENS).contains(prefix_tokens) {
                    let reason = format!("must be between 1 and {}", MAX_INPUT_TOKENS - 1);
                    return Err(ValidationError::new("workload.prefixTokens", reason));
                }
                let kept = u64::from(*groups) * u64::from(*prefix_tokens);
                if kept > MAX_PREFIX_TOKENS_KEPT {
                    let reason = format!(
                        "groups × prefixTokens = {kept} tokens of prefixes, kept while the run sends; at most \
                         {MAX_PREFIX_TOKENS_KEPT}"
                    );
                    return Err(ValidationError::new("workload.groups", reason));
                }
                suffix.validate("workload.suffix", MAX_INPUT_TOKENS - prefix_tokens)?;
                output.validate("workload.output", MAX_OUTPUT_TOKENS)?;
            }
            Self::MultiTurn { users, turns, first, follow_up, output, think, .. } => {
                if !(2..=MAX_TURNS).contains(turns) {
                    return Err(ValidationError::new("workload.turns", format!("must be between 2 and {MAX_TURNS}")));
                }
                if *users == 0 {
                    return Err(ValidationError::new("workload.users", "must be at least 1"));
                }
                first.validate("workload.first", MAX_INPUT_TOKENS)?;
                follow_up.validate("workload.followUp", MAX_INPUT_TOKENS)?;
                output.validate("workload.output", MAX_OUTPUT_TOKENS)?;
                think.validate("workload.think")?;
                // The last turn carries every earlier message and answer: the longest it can be must fit.
                let later = u64::from(turns - 1);
                let longest = u64::from(first.longest())
                    + later * u64::from(follow_up.longest())
                    + later * u64::from(output.longest());
                if longest > u64::from(MAX_INPUT_TOKENS) {
                    let reason = format!(
                        "the last turn's conversation can reach {longest} tokens (the first message, {later} later \
                         messages and {later} answers at their longest); at most {MAX_INPUT_TOKENS}: fewer turns or \
                         shorter messages"
                    );
                    return Err(ValidationError::new("workload.turns", reason));
                }
            }
            Self::Dataset { file, requests, output, .. } => {
                within_rows(*requests, file.rows)?;
                if let Some(output) = output {
                    output.validate("workload.output", MAX_OUTPUT_TOKENS)?;
                }
            }
            Self::Trace { file, requests, speedup, block_tokens, .. } => {
                within_rows(*requests, file.rows)?;
                if !(speedup.is_finite() && (MIN_SPEEDUP..=MAX_SPEEDUP).contains(speedup)) {
                    let reason = format!("{speedup} is outside {MIN_SPEEDUP}..={MAX_SPEEDUP}");
                    return Err(ValidationError::new("workload.speedup", reason));
                }
                if !(1..=MAX_INPUT_TOKENS).contains(block_tokens) {
                    let reason = format!("must be between 1 and {MAX_INPUT_TOKENS}");
                    return Err(ValidationError::new("workload.blockTokens", reason));
                }
            }
        }
        let requests = self.sessions().checked_mul(self.turns()).filter(|r| (1..=MAX_REQUESTS).contains(r));
        if requests.is_none() {
            if let Self::MultiTurn { .. } = self {
                let reason = format!("users × turns must be at most {MAX_REQUESTS} requests");
                return Err(ValidationError::new("workload.users", reason));
            }
            return Err(ValidationError::new("workload.requests", format!("must be between 1 and {MAX_REQUESTS}")));
        }
        Ok(())
    }

    /// Requests the workload sends: every turn of every session.
    pub fn requests(&self) -> u32 {
        self.sessions().saturating_mul(self.turns())
    }

    /// Sessions: conversations of a multi-turn workload; otherwise each request is a session of one turn.
    pub fn sessions(&self) -> u32 {
        match self {
            Self::Synthetic { requests, .. }
            | Self::SharedPrefix { requests, .. }
            | Self::Dataset { requests, .. }
            | Self::Trace { requests, .. } => *requests,
            Self::MultiTurn { users, .. } => *users,
        }
    }

    /// Turns of each session (1 but for a multi-turn workload).
    pub fn turns(&self) -> u32 {
        match self {
            Self::MultiTurn { turns, .. } => *turns,
            _ => 1,
        }
    }

    /// The turn (from 0) request `index` is of its session.
    pub fn turn_of(&self, index: u32) -> u32 {
        index % self.turns()
    }

    /// Seeds the workload's lengths and text.
    pub fn seed(&self) -> u64 {
        match self {
            Self::Synthetic { seed, .. }
            | Self::SharedPrefix { seed, .. }
            | Self::MultiTurn { seed, .. }
            | Self::Dataset { seed, .. }
            | Self::Trace { seed, .. } => *seed,
        }
    }

    /// The workload in a line: `synthetic: input 1000 tokens, output 200 tokens, 500 requests, seed 7`.
    pub fn describe(&self) -> String {
        match self {
            Self::Synthetic { input, output, requests, seed } => format!(
                "synthetic: input {}, output {}, {requests} requests, seed {seed}",
                input.describe(),
                output.describe()
            ),
            Self::SharedPrefix { groups, prefix_tokens, suffix, output, requests, seed } => format!(
                "shared prefix: {groups} group(s) of a {prefix_tokens}-token prefix, then a suffix of {}, output {}, \
                 {requests} requests, seed {seed}",
                suffix.describe(),
                output.describe()
            ),
            Self::MultiTurn { users, turns, first, follow_up, output, think, seed } => format!(
                "multi-turn: {users} conversation(s) of {turns} turns, first message {}, later messages {}, output \
                 {}, think time {}, seed {seed}",
                first.describe(),
                follow_up.describe(),
                output.describe(),
                think.describe()
            ),
            Self::Dataset { file, requests, output, recorded_outputs, .. } => {
                let output = match (output, recorded_outputs) {
                    (None, false) => "as each row says, else the agent's budget".to_string(),
                    (Some(output), false) => output.describe(),
                    (output, true) => format!(
                        "as each row says, else its recorded answer's length, else {}",
                        output.as_ref().map_or_else(|| "the agent's budget".into(), LengthDist::describe)
                    ),
                };
                format!("dataset: {}, {requests} requests, output {output}", file.describe())
            }
            Self::Trace { file, requests, speedup, block_tokens, seed } => format!(
                "trace: {}, {requests} requests at {}× the recorded pace, blocks of {block_tokens} tokens, seed {seed}",
                file.describe(),
                crate::model::trim_number(*speedup)
            ),
        }
    }

    /// The workload of one level of a sweep or capacity search, the `level`-th run (from 0): `requests` of its
    /// requests (a multi-turn workload's conversations enough for them), drawn and cut with a seed of the level's
    /// own, so that a level never finds the prompts of the one before it in the server's prefix cache. A dataset
    /// keeps its rows (each level sends its first ones); a trace has no load to set and is returned as it is.
    pub fn at_level(&self, requests: u32, level: u32) -> Self {
        let mut at = self.clone();
        let reseeded = |seed: &mut u64| *seed = seed.wrapping_add(u64::from(level).wrapping_mul(0x9E37_79B9_7F4A_7C15));
        match &mut at {
            Self::Synthetic { requests: n, seed, .. } | Self::SharedPrefix { requests: n, seed, .. } => {
                *n = requests;
                reseeded(seed);
            }
            Self::MultiTurn { users, turns, seed, .. } => {
                *users = requests.div_ceil(*turns).max(1);
                reseeded(seed);
            }
            Self::Dataset { requests: n, .. } => *n = requests,
            Self::Trace { .. } => {}
        }
        at
    }

    /// Whether the workload reads a file by its path (a dataset's or a trace's): only the command line may.
    pub fn reads_a_file(&self) -> bool {
        matches!(self, Self::Dataset { .. } | Self::Trace { .. })
    }

    /// The uploaded dataset the workload sends, when it sends one (which a server reads from its own records).
    pub fn uploaded_dataset(&self) -> Option<crate::model::DatasetId> {
        match self {
            Self::Dataset { file, .. } => file.uploaded,
            _ => None,
        }
    }

    /// Refuses, on a server, a workload that names a file: a path names a file on the server's machine, and a
    /// request must never make it read one (and send the contents on). A dataset uploaded to the workspace is the
    /// server's own record, not a path.
    pub fn refuse_a_file_on_a_server(&self) -> Result<(), ValidationError> {
        if !self.reads_a_file() || self.uploaded_dataset().is_some() {
            return Ok(());
        }
        let reason = "a server reads no file a request names: upload the dataset to the workspace, or send a dataset \
                      or a trace with `latency-guard bench` on the machine that holds it";
        Err(ValidationError::new("workload.file", reason))
    }

    /// Whether the workload's prompts are made with the server's tokenizer (a dataset's are sent as written).
    pub fn needs_tokenizer(&self) -> bool {
        // A dataset's recorded answers are counted with it.
        !matches!(self, Self::Dataset { recorded_outputs: false, .. })
    }
}

/// Refuses more requests than a file's rows.
fn within_rows(requests: u32, rows: u32) -> Result<(), ValidationError> {
    if (1..=rows).contains(&requests) {
        return Ok(());
    }
    let reason = if rows == 0 {
        "the file has no rows".to_string()
    } else {
        format!("{requests} requests: must be between 1 and the file's {rows} rows")
    };
    Err(ValidationError::new("workload.requests", reason))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn synthetic(input: LengthDist, requests: u32) -> Workload {
        Workload::Synthetic { input, output: LengthDist::fixed(200), requests, seed: 7 }
    }

    #[test]
    fn reads_the_shape_a_workload_file_and_the_api_send() {
        let sent = serde_json::json!({"kind": "synthetic", "input": {"kind": "fixed", "tokens": 1000},
                                      "output": {"kind": "fixed", "tokens": 200}, "requests": 50});
        let read: Workload = serde_json::from_value(sent).unwrap();
        let expected = Workload::Synthetic {
            input: LengthDist::fixed(1000),
            output: LengthDist::fixed(200),
            requests: 50,
            seed: 0,
        };
        assert_eq!(read, expected);
        assert_eq!(read.describe(), "synthetic: input 1000 tokens, output 200 tokens, 50 requests, seed 0");
    }

    #[test]
    fn names_the_field_a_workload_cannot_have() {
        let too_long = LengthDist::fixed(workload_limits::MAX_INPUT_TOKENS + 1);
        assert_eq!(synthetic(too_long, 5).validate().unwrap_err().field, "workload.input.tokens");
        assert_eq!(synthetic(LengthDist::fixed(10), 0).validate().unwrap_err().field, "workload.requests");
        let long_answers = Workload::Synthetic {
            input: LengthDist::fixed(10),
            output: LengthDist::fixed(workload_limits::MAX_OUTPUT_TOKENS + 1),
            requests: 5,
            seed: 0,
        };
        assert_eq!(long_answers.validate().unwrap_err().field, "workload.output.tokens");
        assert!(synthetic(LengthDist::fixed(1000), 5).validate().is_ok());
    }

    #[test]
    fn a_shared_prefix_leaves_room_for_its_suffix() {
        let shared = |groups, prefix_tokens, suffix| Workload::SharedPrefix {
            groups,
            prefix_tokens,
            suffix,
            output: LengthDist::fixed(10),
            requests: 10,
            seed: 1,
        };
        assert!(shared(4, 1_000, LengthDist::fixed(50)).validate().is_ok());
        assert_eq!(shared(0, 1_000, LengthDist::fixed(50)).validate().unwrap_err().field, "workload.groups");
        assert_eq!(shared(10_000, 100_000, LengthDist::fixed(50)).validate().unwrap_err().field, "workload.groups");
        // 2,000,000 tokens of prefixes kept at most: 16 whole 125,000-token contexts, not one token more.
        assert!(shared(16, 125_000, LengthDist::fixed(50)).validate().is_ok());
        let over = shared(16, 125_001, LengthDist::fixed(50)).validate().unwrap_err();
        assert_eq!(over.field, "workload.groups");
        assert!(
            over.reason.contains("2000016 tokens of prefixes") && over.reason.contains("at most 2000000"),
            "{over:?}"
        );
        assert_eq!(shared(4, 0, LengthDist::fixed(50)).validate().unwrap_err().field, "workload.prefixTokens");
        let too_long = LengthDist::fixed(workload_limits::MAX_INPUT_TOKENS - 999);
        assert_eq!(shared(4, 1_000, too_long).validate().unwrap_err().field, "workload.suffix.tokens");
        let read: Workload = serde_json::from_value(serde_json::json!({"kind": "sharedPrefix", "groups": 2,
            "prefixTokens": 512, "suffix": {"kind": "fixed", "tokens": 64}, "output": {"kind": "fixed", "tokens": 8},
            "requests": 20}))
        .unwrap();
        assert_eq!(
            read.describe(),
            "shared prefix: 2 group(s) of a 512-token prefix, then a suffix of 64 tokens, output 8 tokens, 20 requests, \
             seed 0"
        );
    }

    #[test]
    fn a_conversation_must_fit_the_longest_context_by_its_last_turn() {
        let conversation = |users, turns, follow_up| Workload::MultiTurn {
            users,
            turns,
            first: LengthDist::fixed(1_000),
            follow_up,
            output: LengthDist::fixed(500),
            think: ThinkTime::Fixed { ms: 100 },
            seed: 3,
        };
        let fits = conversation(8, 5, LengthDist::fixed(200));
        assert!(fits.validate().is_ok());
        assert_eq!((fits.requests(), fits.sessions(), fits.turns()), (40, 8, 5));
        assert_eq!(
            fits.describe(),
            "multi-turn: 8 conversation(s) of 5 turns, first message 1000 tokens, later messages 200 tokens, output \
             500 tokens, think time 100 ms, seed 3"
        );
        let field = |w: Workload| w.validate().unwrap_err().field;
        // 1,000 + 99 × (2,000 + 500) tokens by the last turn.
        assert_eq!(field(conversation(8, 100, LengthDist::fixed(2_000))), "workload.turns");
        assert_eq!(field(conversation(8, 1, LengthDist::fixed(200))), "workload.turns");
        assert_eq!(field(conversation(0, 5, LengthDist::fixed(200))), "workload.users");
        assert_eq!(field(conversation(400_000, 5, LengthDist::fixed(2))), "workload.users");
        assert_eq!(field(conversation(8, 5, LengthDist::fixed(0))), "workload.followUp.tokens");
        let read: Workload = serde_json::from_value(serde_json::json!({"kind": "multiTurn", "users": 2, "turns": 3,
            "first": {"kind": "fixed", "tokens": 100}, "followUp": {"kind": "fixed", "tokens": 20},
            "output": {"kind": "fixed", "tokens": 10}}))
        .unwrap();
        assert_eq!(read.requests(), 6);
        assert!(read.describe().contains("think time 0 ms"), "no think time unless asked");
    }

    #[test]
    fn a_level_sends_its_number_of_requests_with_a_seed_of_its_own() {
        let synthetic =
            Workload::Synthetic { input: LengthDist::fixed(64), output: LengthDist::fixed(8), requests: 10, seed: 5 };
        let (first, second) = (synthetic.at_level(100, 0), synthetic.at_level(40, 1));
        assert_eq!((first.requests(), second.requests()), (100, 40));
        assert_eq!(first.seed(), 5, "the first level keeps the workload's seed");
        assert_ne!(second.seed(), first.seed(), "a level does not resend the one before it");
        let chat = Workload::MultiTurn {
            users: 1,
            turns: 4,
            first: LengthDist::fixed(50),
            follow_up: LengthDist::fixed(10),
            output: LengthDist::fixed(5),
            think: ThinkTime::default(),
            seed: 0,
        };
        assert_eq!(chat.at_level(10, 2).sessions(), 3, "conversations enough for 10 requests");
    }
}
