//! A server's own tokenizer, through its `/tokenize` at the server root: the most exact count there is, since
//! it is the tokenizer that will read the prompt. Two forms exist among self-hosted engines and both are spoken:
//! llama.cpp's (`{"content", "with_pieces": true}` → each token's `id` and `piece`) and vLLM's, which SGLang
//! shares (`{"model", "prompt", "add_special_tokens": false}` → `tokens` ids, turned back into text by
//! `/detokenize`). Every call goes out through the connector's [`RequestTarget`], so the outbound-address policy
//! judges it as it judges the model calls. What a server answers is bounded before it is read: an answer may be at
//! most about the largest a tokenizer could legally give for the text sent (40 bytes a byte of it), it is read
//! into compact [`Tokens`] with no more tokens than the text had bytes, and the answers being read at once across
//! the process share one memory budget ([`ANSWER_BUDGET_BYTES`]).

use std::time::Duration;

use reqwest::header::HeaderMap;
use serde::Deserialize;
use serde_json::{json, Value};
use tokio::sync::Semaphore;

use super::tokens::{read_tokens, Tokens};
use crate::engine::{describe_error, HttpClient, RequestTarget};

/// How long one call may take.
const CALL_TIMEOUT: Duration = Duration::from_secs(30);
/// The largest answer read: a 128 Ki-token prompt with its pieces is a few MiB.
const MAX_ANSWER_BYTES: usize = 32 * 1024 * 1024;
/// An answer's bytes per byte of text sent, at most: llama.cpp's `{"id":4294967295,"piece":"…"},` is 30 bytes a
/// token beside its piece, a piece's byte is at most 6 escaped (`\u00e9`), and a token is at least one byte of text.
const ANSWER_BYTES_PER_TEXT_BYTE: usize = 40;
/// The same for an answer of ids only (`4294967295, ` is 12 bytes; vLLM's few other fields fit in the spare).
const ID_ANSWER_BYTES_PER_TEXT_BYTE: usize = 16;
/// Tokens allowed beyond one a byte of text: a server that adds its own begin-of-text marks anyway.
const EXTRA_TOKENS: usize = 8;
/// The memory all answers being read at once may take, across the process: a call waits for its share (the
/// largest answer it may read) before it sends.
pub const ANSWER_BUDGET_BYTES: usize = 64 * 1024 * 1024;
/// The budget's unit, bytes: a permit of [`ANSWER_BUDGET`] is a KiB of answer.
const BUDGET_UNIT: usize = 1024;
/// Every answer being read at once holds its largest size of this.
static ANSWER_BUDGET: Semaphore = Semaphore::const_new(ANSWER_BUDGET_BYTES / BUDGET_UNIT);
/// The text discovery tokenizes.
const PROBE_TEXT: &str = "How many tokens is this?";

/// The form of a server's `/tokenize`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenizeForm {
    /// llama.cpp's: pieces with the ids.
    LlamaCpp,
    /// vLLM's and SGLang's: ids and a count; text back through `/detokenize`.
    Vllm,
}

impl TokenizeForm {
    /// The form in words: `llama.cpp's /tokenize (with pieces)`.
    pub fn describe(self) -> &'static str {
        match self {
            Self::LlamaCpp => "llama.cpp's /tokenize (with pieces)",
            Self::Vllm => "vLLM's /tokenize and /detokenize",
        }
    }
}

/// Why the server's tokenizer could not be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TokenizeError {
    /// The outbound-address policy refused the server's address.
    #[error("{0}")]
    Refused(String),
    /// The server could not be reached or did not answer in time.
    #[error("the server's /{path} could not be reached: {detail}")]
    Unreachable {
        /// `tokenize` or `detokenize`.
        path: &'static str,
        /// What the network said (secrets scrubbed).
        detail: String,
    },
    /// The server answered with an error status.
    #[error("the server's /{path} answered HTTP {status}: {detail}")]
    Status {
        /// `tokenize` or `detokenize`.
        path: &'static str,
        /// The status.
        status: u16,
        /// The start of its body (secrets scrubbed).
        detail: String,
    },
    /// The answer was not what either form sends.
    #[error("the server's /{path} answered something that is not a list of tokens: {detail}")]
    NotTokens {
        /// `tokenize` or `detokenize`.
        path: &'static str,
        /// What was wrong.
        detail: String,
    },
    /// Neither form was answered.
    #[error("the server has no /tokenize that latency-guard speaks (llama.cpp's or vLLM's): {0}")]
    NotFound(String),
    /// A tokenizer read from a file (a tokenizer.json, the estimate's vocabulary) could not be read or used.
    #[error("the tokenizer {path}: {detail}")]
    File {
        /// Which file.
        path: String,
        /// What was wrong.
        detail: String,
    },
}

/// A server's tokenizer.
#[derive(Clone)]
pub struct ServerTokenizer {
    client: reqwest::Client,
    root: String,
    headers: HeaderMap,
    redactor: crate::engine::Redactor,
    model: String,
    form: TokenizeForm,
}

/// What `/detokenize` answers: llama.cpp names the text `content`, vLLM `prompt`, SGLang `text`.
#[derive(Deserialize)]
struct Detokenized {
    content: Option<String>,
    prompt: Option<String>,
    text: Option<String>,
}

impl ServerTokenizer {
    /// Finds the `/tokenize` of the server behind `target` (llama.cpp's form first, then vLLM's) for `model`.
    pub async fn discover(client: &HttpClient, target: &RequestTarget, model: &str) -> Result<Self, TokenizeError> {
        let reqwest = client.for_target(target).map_err(|refusal| TokenizeError::Refused(refusal.to_string()))?;
        let mut tokenizer = Self {
            client: reqwest.clone(),
            root: target.base_url.server_root(),
            headers: target.header_map().unwrap_or_default(),
            redactor: target.redactor(),
            model: model.to_string(),
            form: TokenizeForm::LlamaCpp,
        };
        let llama = match tokenizer.tokenize(PROBE_TEXT).await {
            Ok(tokens) if !tokens.is_empty() && tokens.has_pieces() => return Ok(tokenizer),
            Ok(_) => "llama.cpp's form gave no pieces".to_string(),
            Err(e @ (TokenizeError::Refused(_) | TokenizeError::Unreachable { .. })) => return Err(e),
            Err(e) => e.to_string(),
        };
        tokenizer.form = TokenizeForm::Vllm;
        match tokenizer.tokenize(PROBE_TEXT).await {
            Ok(tokens) if !tokens.is_empty() => Ok(tokenizer),
            Ok(_) => Err(TokenizeError::NotFound(format!("{llama}; vLLM's form counted no tokens"))),
            Err(e) => Err(TokenizeError::NotFound(format!("{llama}; {e}"))),
        }
    }

    /// The form this server speaks.
    pub fn form(&self) -> TokenizeForm {
        self.form
    }

    /// The tokens of `text`, without the special tokens a server would add around a whole prompt.
    pub async fn tokenize(&self, text: &str) -> Result<Tokens, TokenizeError> {
        self.tokens(text, true).await
    }

    /// How many tokens `text` is: its ids only, without llama.cpp's pieces (an answer a quarter the size).
    pub async fn count(&self, text: &str) -> Result<usize, TokenizeError> {
        Ok(self.tokens(text, false).await?.len())
    }

    /// The tokens of `text`, with llama.cpp's pieces when `pieces` (vLLM's form has none).
    async fn tokens(&self, text: &str, pieces: bool) -> Result<Tokens, TokenizeError> {
        let body = match self.form {
            TokenizeForm::LlamaCpp => json!({"content": text, "add_special": false, "with_pieces": pieces}),
            TokenizeForm::Vllm => json!({"model": self.model, "prompt": text, "add_special_tokens": false}),
        };
        let per_byte = if pieces { ANSWER_BYTES_PER_TEXT_BYTE } else { ID_ANSWER_BYTES_PER_TEXT_BYTE };
        let largest = text.len().saturating_mul(per_byte).saturating_add(BUDGET_UNIT);
        let answer = self.post("tokenize", &body, largest).await?;
        read_tokens(&answer, text.len() + EXTRA_TOKENS)
            // serde quotes the value it could not read, and a server may echo what it was sent: scrubbed.
            .map_err(|e| TokenizeError::NotTokens { path: "tokenize", detail: self.redactor.scrub_and_clip(&e, 300) })
    }

    /// The text of `ids`.
    pub async fn detokenize(&self, ids: &[u32]) -> Result<String, TokenizeError> {
        let body = match self.form {
            TokenizeForm::LlamaCpp => json!({"tokens": ids}),
            TokenizeForm::Vllm => json!({"model": self.model, "tokens": ids}),
        };
        // A token's text is rarely over a few dozen bytes; 1 KiB each, escaped, is far beyond any vocabulary's.
        let largest = ids.len().saturating_mul(BUDGET_UNIT).saturating_add(BUDGET_UNIT);
        let answer = self.post("detokenize", &body, largest).await?;
        let not_text = |detail: String| TokenizeError::NotTokens { path: "detokenize", detail };
        let read: Detokenized =
            serde_json::from_slice(&answer).map_err(|e| not_text(self.redactor.scrub_and_clip(&e.to_string(), 300)))?;
        read.content.or(read.prompt).or(read.text).ok_or_else(|| not_text("no text in the answer".into()))
    }

    /// Posts `body` to the server's `/{path}` and reads its answer, at most `largest` bytes (and never more than
    /// [`MAX_ANSWER_BYTES`]), once the process's answer budget has room for that much.
    async fn post(&self, path: &'static str, body: &Value, largest: usize) -> Result<Vec<u8>, TokenizeError> {
        let largest = largest.min(MAX_ANSWER_BYTES);
        let scrub = |text: &str| self.redactor.scrub_and_clip(text, 300);
        let unreachable = |e: &reqwest::Error| TokenizeError::Unreachable { path, detail: scrub(&describe_error(e)) };
        let call = async {
            let units = u32::try_from(largest.div_ceil(BUDGET_UNIT)).unwrap_or(u32::MAX);
            let _share = ANSWER_BUDGET
                .acquire_many(units)
                .await
                .map_err(|_| TokenizeError::Unreachable { path, detail: "the server is stopping".into() })?;
            let mut response = self
                .client
                .post(format!("{}/{path}", self.root))
                .headers(self.headers.clone())
                .json(body)
                .send()
                .await
                .map_err(|e| unreachable(&e))?;
            let status = response.status().as_u16();
            // Sized once when the server says how long its answer is (growing by doubling can hold twice it).
            let said = response.content_length().and_then(|n| usize::try_from(n).ok()).filter(|&n| n <= largest);
            let mut bytes = Vec::with_capacity(said.unwrap_or(0));
            while let Some(chunk) = response.chunk().await.map_err(|e| unreachable(&e))? {
                if bytes.len() + chunk.len() > largest {
                    let detail =
                        format!("the answer is over {largest} bytes, more than any tokenizer gives for what was sent");
                    return Err(TokenizeError::NotTokens { path, detail });
                }
                bytes.extend_from_slice(&chunk);
            }
            if !(200..300).contains(&status) {
                let detail = scrub(&String::from_utf8_lossy(&bytes));
                return Err(TokenizeError::Status { path, status, detail });
            }
            Ok(bytes)
        };
        tokio::time::timeout(CALL_TIMEOUT, call).await.unwrap_or_else(|_| {
            Err(TokenizeError::Unreachable { path, detail: format!("no answer within {} s", CALL_TIMEOUT.as_secs()) })
        })
    }
}
