//! What a workload asks a run to send, as a user states it (the API, the browser's form, a `--workload` file)
//! and as it is kept in the run's plan and report: every parameter, so a report can be read, and the run repeated,
//! without anything else.

use serde::{Deserialize, Serialize};

use super::lengths::{workload_limits, LengthDist};
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
}

impl Workload {
    /// Refuses what no run could send, naming the field under `workload.`.
    pub fn validate(&self) -> Result<(), ValidationError> {
        match self {
            Self::Synthetic { input, output, requests, .. } => {
                input.validate("workload.input", workload_limits::MAX_INPUT_TOKENS)?;
                output.validate("workload.output", workload_limits::MAX_OUTPUT_TOKENS)?;
                if !(1..=workload_limits::MAX_REQUESTS).contains(requests) {
                    let reason = format!("must be between 1 and {}", workload_limits::MAX_REQUESTS);
                    return Err(ValidationError::new("workload.requests", reason));
                }
                Ok(())
            }
        }
    }

    /// Requests the workload sends.
    pub fn requests(&self) -> u32 {
        match self {
            Self::Synthetic { requests, .. } => *requests,
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
        }
    }
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
}
