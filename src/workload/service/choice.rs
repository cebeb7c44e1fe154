//! Which tokenizer cuts a workload's prompts, in the order of preference: the server's own `/tokenize`, the
//! model's tokenizer.json a user gave, else an estimate with a well-known BPE; and the one interface the prompt
//! maker uses, whichever it is.

use super::offline::{EstimateTokenizer, FileTokenizer};
use crate::engine::Tokens;
use crate::engine::{HttpClient, RequestTarget};
use crate::engine::{ServerTokenizer, TokenizeError};

/// The tokenizer a workload's prompts are cut with, in the order of preference: the server's own `/tokenize`, a
/// tokenizer.json the user gave, else an estimate with a well-known BPE.
#[derive(Clone)]
pub enum Tokenizer {
    /// The server's own.
    Server(ServerTokenizer),
    /// The model's tokenizer.json.
    File(FileTokenizer),
    /// o200k_base: not the model's own, so counts are estimates.
    Estimate(EstimateTokenizer),
}

impl Tokenizer {
    /// The best tokenizer for `model` behind `target`: its server's `/tokenize`; without one, `file` (a
    /// tokenizer.json); without that, the estimate. A server that cannot be reached, or a refused address, is an
    /// error, not a reason to estimate.
    pub async fn choose(
        client: &HttpClient,
        target: &RequestTarget,
        model: &str,
        file: Option<&std::path::Path>,
    ) -> Result<Self, TokenizeError> {
        match ServerTokenizer::discover(client, target, model).await {
            Ok(server) => Ok(Self::Server(server)),
            Err(TokenizeError::NotFound(_)) => match file {
                Some(path) => Ok(Self::File(FileTokenizer::open(path)?)),
                None => Ok(Self::Estimate(EstimateTokenizer::shared()?)),
            },
            Err(e) => Err(e),
        }
    }

    /// Which one this is, as the report says it.
    pub fn used(&self) -> crate::model::PromptTokenizer {
        use crate::model::PromptTokenizer as Used;
        match self {
            Self::Server(server) => Used::Server { form: server.form().describe().to_string() },
            Self::File(file) => Used::File { path: file.path().to_string() },
            Self::Estimate(_) => Used::Estimate { vocabulary: EstimateTokenizer::VOCABULARY.into() },
        }
    }

    /// The tokens of `text`, without the special tokens a server would add around a whole prompt.
    pub async fn tokenize(&self, text: &str) -> Result<Tokens, TokenizeError> {
        match self {
            Self::Server(server) => server.tokenize(text).await,
            Self::File(file) => file.tokenize(text),
            Self::Estimate(estimate) => Ok(estimate.tokenize(text)),
        }
    }

    /// How many tokens `text` is.
    pub async fn count(&self, text: &str) -> Result<usize, TokenizeError> {
        match self {
            Self::Server(server) => server.count(text).await,
            _ => Ok(self.tokenize(text).await?.len()),
        }
    }

    /// The text of `ids`.
    pub async fn detokenize(&self, ids: &[u32]) -> Result<String, TokenizeError> {
        match self {
            Self::Server(server) => server.detokenize(ids).await,
            Self::File(file) => file.detokenize(ids),
            Self::Estimate(estimate) => estimate.detokenize(ids),
        }
    }
}
