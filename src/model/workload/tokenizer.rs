//! Which tokenizer cut a run's prompts, as its report says: the server's own `/tokenize`, the model's
//! tokenizer.json given by a user, or an estimate with a well-known BPE (then every made length is an estimate).

use serde::{Deserialize, Serialize};

/// The tokenizer a run's workload prompts were made with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase", deny_unknown_fields)]
pub enum PromptTokenizer {
    /// The server's own `/tokenize`, in the form it speaks.
    #[serde(rename_all = "camelCase")]
    Server {
        /// The form, in words.
        form: String,
    },
    /// The model's tokenizer.json.
    #[serde(rename_all = "camelCase")]
    File {
        /// Where it was read (on the machine that ran `bench`).
        path: String,
    },
    /// A well-known BPE, not the model's own: every made length is an estimate.
    #[serde(rename_all = "camelCase")]
    Estimate {
        /// The vocabulary's name (`o200k_base`).
        vocabulary: String,
    },
}

impl PromptTokenizer {
    /// The tokenizer in a few words, for notes.
    pub fn describe(&self) -> String {
        match self {
            Self::Server { form } => format!("the server's own tokenizer ({form})"),
            Self::File { path } => format!("the model's tokenizer.json given to bench ({path})"),
            Self::Estimate { vocabulary } => {
                format!("an estimate: OpenAI's {vocabulary} BPE, as the server has no /tokenize and no tokenizer.json was given")
            }
        }
    }

    /// Whether the lengths it made are estimates.
    pub fn is_estimate(&self) -> bool {
        matches!(self, Self::Estimate { .. })
    }
}
